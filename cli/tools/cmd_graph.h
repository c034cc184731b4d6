/* cmd_graph.h - `dsana graph convert|info|gen`: the graph tools. */
#ifndef DSANA_CLI_CMD_GRAPH_H
#define DSANA_CLI_CMD_GRAPH_H

/* argv[0] is "graph". Returns the exit code: 0 ok, 2 bad usage or bad
 * input, 1 other failures (out of memory, cannot write the output). */
int cmd_graph_main(int argc, char **argv);

/* `dsana graph gen ...` (cmd_graph_gen.c); argv[0] is "gen". */
int cmd_graph_gen(int argc, char **argv);

#endif
