/* cmd_data.h - `dsana data convert|info|gen`: the dataset tools. */
#ifndef DSANA_CLI_CMD_DATA_H
#define DSANA_CLI_CMD_DATA_H

/* argv[0] is "data". Returns the exit code: 0 ok, 2 bad usage or bad
 * input, 1 other failures (out of memory, cannot write the output). */
int cmd_data_main(int argc, char **argv);

#endif
