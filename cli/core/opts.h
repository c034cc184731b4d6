/*
 * opts.h - the command line of `dsana APP` and of the single-role commands:
 * the runtime's common options merged with the app's own into one
 * getopt_long table. Bad usage is one line on stderr and exit code 2.
 */
#ifndef DSANA_CLI_OPTS_H
#define DSANA_CLI_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dsana/dsana.h"
#include "runtime/core/config.h"
#include "runtime/msg/msg.h"

struct cli_run {
  struct run_config cfg;
  const struct dsana_app *app;
  void *app_state; /* created by cli_parse_run; destroy with app->destroy */
  struct app_args args;
  int help;           /* --help or -h was asked (nothing printed: the caller prints the usage) */
  bool workers_given; /* --workers (else a --scenario's count, or the cores) */
  bool servers_given; /* --servers (else 1, or a --resume checkpoint's count) */
  struct {
    const char *name; /* the app's static string */
    double value;
  } facts[DSANA_MAX_FACTS]; /* about the input, from the app's setup (the summary's) */
  uint32_t n_facts;
};

/* Parse argv[0..argc) where argv[0] is the app name. Returns 0, or
 * DSANA_EUSAGE after printing one line (prog: message). */
int cli_parse_run(const struct dsana_app *app, int argc, char **argv, struct cli_run *out);
/* The same for a value read from a file, not typed: a refusal says where
 * from (origin, e.g. "cannot resume from ck: ck/manifest records") before
 * the app's words, so it is not taken for the user's option. */
int cli_add_app_arg_from(struct cli_run *r, const char *name, const char *value, const char *origin);
/* Messages say "dsana NAME:" instead of the app's name (dsana sim runs an
 * app's options through cli_parse_run), and what they say it is. */
void cli_name_command(const char *name);
const char *cli_command(const struct cli_run *r);
/* The fault plan of a test run (runtime/core/fault.h) from DSANA_FAULT: a
 * malformed one is reported and ignored. */
void cli_fault_from_env(struct run_config *c);

/* A runtime option: its getopt entry, the name of its value (NULL for a
 * flag), its help line (with the default) and, for errors, what a valid
 * value looks like. */
struct cli_common_opt {
  struct option opt;
  const char *arg, *help, *expect;
};
/* The value app option o has in run r: the last one given, else its
 * default; a flag given is "on"; NULL: neither (a flag not given, an
 * option without default). */
const char *cli_option_value(const struct cli_run *r, const struct dsana_app_option *o);
/* The runtime options every app takes (static table). */
const struct cli_common_opt *cli_common_options(size_t *n);

/* Strict number parsing for option values. cli_parse_decimal: an unsigned
 * decimal integer that fits 64 bits, no sign, nothing after it. */
bool cli_parse_decimal(const char *s, uint64_t *out);
int cli_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);
/* The same for 64 bits: decimal digits only, every digit counted (no
 * rounding through a double: 2^53 + 1 is above 2^53). */
int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A duration in seconds within [CLI_SECONDS_MIN, CLI_SECONDS_MAX]: the
 * timeouts become ns and ms counts and deadlines on the clock, which a
 * larger value overflows (a peer "silent for 0.0 s" was lost at once) and
 * a tiny one rounds to nothing. CLI_SECONDS_EXPECT says so in an error. */
#define CLI_SECONDS_MIN 1e-3
#define CLI_SECONDS_MAX 1e6
#define CLI_SECONDS_EXPECT "a number of seconds in [0.001, 1e6]"
int cli_parse_seconds(const char *s, double *out);

/* An option that takes a value given twice ("--workers 2 ... --workers 4")
 * is refused by every command: it used to take the last value without a
 * word, so a script appending an option a command line already has ran
 * something else than it showed. A flag without a value may repeat
 * (--verbose twice means debug). Call once per option getopt_long returns,
 * with val its value and seen one bool per row of table (zeroed before the
 * first): the option's name if it is a repeat, else NULL. */
struct option;
const char *cli_repeated_option(const struct option *table, bool *seen, int val);

/* Whether v is a --scheduler address: tcp://HOST:PORT (port 1..65535),
 * ipc://PATH or another scheme the transport knows; CLI_ADDR_EXPECT says
 * so in an error. */
bool cli_addr_valid(const char *v);
#define CLI_ADDR_EXPECT "an address tcp://HOST:PORT (port 1..65535) or ipc://PATH"

#endif
