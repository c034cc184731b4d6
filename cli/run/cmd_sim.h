/* cmd_sim.h - `dsana sim`: simulate a run (src/sim) from the command line. */
#ifndef DSANA_CLI_CMD_SIM_H
#define DSANA_CLI_CMD_SIM_H

/* argv[0] is "sim". Returns the process exit code (2: bad usage or input). */
int cmd_sim_main(int argc, char **argv);

#endif
