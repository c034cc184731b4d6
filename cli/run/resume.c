/* resume.c - a run's identity in its checkpoints, checked on --resume (resume.h).
 *
 * The identity is text, one fact per line:
 *   app NAME
 *   param NAME VALUE                 every DSANA_OPT_PARAM option, default or given
 *   input LABEL SIZE CRC32 PATH      every input file (LABEL: "GRAPH", "--personalization")
 *   keep NAME VALUE                  a report or output option given (not compared)
 * Values and paths are escaped (\xHH for '\', newlines, control bytes);
 * relative paths are recorded from the folder the run started in, so a
 * resume from elsewhere still finds them. */
#include "cli/run/resume.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "runtime/record/checkpoint.h"

struct text {
  char *p;
  size_t n, cap;
  bool full;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int w = t->full ? 0 : vsnprintf(t->p + t->n, t->cap - t->n, fmt, ap);
  va_end(ap);
  if (w < 0 || (size_t)w >= t->cap - t->n)
    t->full = true;
  else
    t->n += (size_t)w;
}

static void put_escaped(struct text *t, const char *s) {
  for (const unsigned char *c = (const unsigned char *)s; *c; c++)
    if (*c < 0x20 || *c == '\\' || *c == 0x7f)
      put(t, "\\x%02x", *c);
    else
      put(t, "%c", *c);
}

/* Size and CRC-32 of a regular file (others: 0 and 0). */
static int file_sum(const char *path, uint64_t *size, uint32_t *crc) {
  struct stat st;
  *size = 0;
  *crc = 0;
  if (stat(path, &st) != 0)
    return errno;
  if (!S_ISREG(st.st_mode))
    return 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  static unsigned char buf[1 << 20];
  uLong c = crc32(0L, Z_NULL, 0);
  ssize_t got = fd < 0 ? -1 : 0;
  while (fd >= 0 && (got = read(fd, buf, sizeof buf)) > 0) {
    c = crc32(c, buf, (uInt)got);
    *size += (uint64_t)got;
  }
  int e = got < 0 ? errno : 0;
  if (fd >= 0)
    close(fd);
  *crc = (uint32_t)c;
  return e;
}

/* The value an option has in this run (flags: on or off). */
static const char *effective(const struct cli_run *r, const struct dsana_app_option *o) {
  const char *v = cli_option_value(r, o);
  return v ? v : o->arg ? "" : "off";
}

/* path as the identity records it: absolute unless "-" (stdout/stdin). */
static void put_path(struct text *t, const char *path) {
  char cwd[CONFIG_PATH_MAX];
  if (path[0] != '/' && strcmp(path, "-") != 0 && getcwd(cwd, sizeof cwd)) {
    put_escaped(t, cwd);
    put(t, "/");
  }
  put_escaped(t, path);
}

static int put_input(struct text *t, const char *label, const char *path) {
  uint64_t size;
  uint32_t crc;
  int e = file_sum(path, &size, &crc);
  if (e)
    return e;
  put(t, "input %s %llu %08x ", label, (unsigned long long)size, crc);
  put_path(t, path);
  put(t, "\n");
  return 0;
}

static const struct dsana_app_option *app_option(const struct dsana_app *app, const char *name) {
  for (size_t k = 0; app->options && app->options[k].name; k++)
    if (strcmp(app->options[k].name, name) == 0)
      return &app->options[k];
  return NULL;
}

/* A report or output option the user gave, to be taken again on --resume. */
static void put_kept(struct text *t, const struct dsana_app_option *o, const char *value) {
  put(t, "keep %s ", o->name);
  if (!o->arg)
    put(t, "on");
  else if (o->kind == DSANA_OPT_OUTPUT)
    put_path(t, value);
  else
    put_escaped(t, value);
  put(t, "\n");
}

static int build_identity(const struct cli_run *r, char *out, size_t cap) {
  struct text t = {.p = out, .cap = cap};
  const struct dsana_app *app = r->app;
  put(&t, "app %s\n", app->name);
  for (size_t i = 0; app->options && app->options[i].name; i++)
    if (app->options[i].kind == DSANA_OPT_PARAM) {
      put(&t, "param %s ", app->options[i].name);
      put_escaped(&t, effective(r, &app->options[i]));
      put(&t, "\n");
    }
  for (uint32_t i = 0; i < r->args.n; i++) {
    const char *name = r->args.name[i];
    char label[MSG_NAME_MAX + 4];
    snprintf(label, sizeof label, "--%s", name);
    const struct dsana_app_option *o = name[0] ? app_option(app, name) : NULL;
    bool input = !name[0] || (o && o->kind == DSANA_OPT_INPUT);
    if (o && (o->kind == DSANA_OPT_REPORT || o->kind == DSANA_OPT_OUTPUT))
      put_kept(&t, o, r->args.value[i]);
    int e = input ? put_input(&t, name[0] ? label : app->args, r->args.value[i]) : 0;
    if (e) {
      fprintf(stderr, "dsana %s: %s: %s\n", app->name, r->args.value[i], strerror(e));
      return DSANA_EIO;
    }
  }
  return t.full ? DSANA_ERANGE : 0;
}

/* The rest of the line "KIND NAME rest" in text, into buf; false if none. */
static bool find(const char *text, const char *kind, const char *name, char *buf, size_t len) {
  size_t kl = strlen(kind), nl = strlen(name);
  for (const char *line = text; *line;) {
    const char *end = strchr(line, '\n');
    size_t ll = end ? (size_t)(end - line) : strlen(line);
    if (ll > kl + nl + 1 && strncmp(line, kind, kl) == 0 && line[kl] == ' ' && strncmp(line + kl + 1, name, nl) == 0 &&
        line[kl + 1 + nl] == ' ') {
      snprintf(buf, len, "%.*s", (int)(ll - kl - nl - 2), line + kl + nl + 2);
      return true;
    }
    line += ll + (end ? 1 : 0);
  }
  return false;
}

static bool same_value(const char *a, const char *b) {
  if (strcmp(a, b) == 0)
    return true;
  char *ea, *eb;
  double x = strtod(a, &ea), y = strtod(b, &eb);
  return ea != a && eb != b && !*ea && !*eb && x == y;
}

/* The first fact of kind `only` in `now` that `saved` contradicts, as one
 * line in err. */
static int compare_lines(const char *saved, const char *now, const char *only, char *err, size_t errlen) {
  char kind[16], name[MSG_NAME_MAX + 4], was[CONFIG_PATH_MAX + 64];
  for (const char *line = now; *line && strchr(line, '\n'); line = strchr(line, '\n') + 1) {
    if (sscanf(line, "%15s %67s", kind, name) != 2 || strcmp(kind, only) != 0)
      continue;
    const char *rest = line + strlen(kind) + strlen(name) + 2;
    size_t rl = (size_t)(strchr(line, '\n') - rest);
    bool input = strcmp(kind, "input") == 0;
    if (!find(saved, kind, name, was, sizeof was)) {
      if (!input)
        continue; /* a parameter the checkpoint's dsana did not have */
      snprintf(err, errlen, "the checkpoint's run had no %s", name);
      return DSANA_EUSAGE;
    }
    char is[CONFIG_PATH_MAX + 64];
    snprintf(is, sizeof is, "%.*s", (int)rl, rest);
    bool flag = (!strcmp(is, "on") || !strcmp(is, "off")) && (!strcmp(was, "on") || !strcmp(was, "off"));
    if (!input && !same_value(is, was)) {
      if (flag)
        snprintf(err, errlen, "the checkpoint's run had %s--%s (it would not give that run's result)",
                 strcmp(was, "on") ? "no " : "", name);
      else
        snprintf(err, errlen, "--%s %s, but the checkpoint's run had --%s %s (it would not give that run's result)",
                 name, is, name, was);
      return DSANA_EUSAGE;
    }
    unsigned long long s1, s2;
    unsigned c1, c2;
    int p1 = 0, p2 = 0;
    if (input && sscanf(is, "%llu %x %n", &s1, &c1, &p1) == 2 && sscanf(was, "%llu %x %n", &s2, &c2, &p2) == 2 &&
        (s1 != s2 || c1 != c2)) {
      snprintf(err, errlen, "%s %s is not the checkpoint's input (%s, %llu bytes, CRC-32 %08x)", name, is + p1,
               was + p2, s2, c2);
      return DSANA_EUSAGE;
    }
  }
  return 0;
}

/* Inputs the checkpoint's run had and this one lacks. */
static int compare_inputs(const char *saved, const char *now, char *err, size_t errlen) {
  char name[MSG_NAME_MAX + 4], buf[CONFIG_PATH_MAX + 64];
  for (const char *line = saved; *line && strchr(line, '\n'); line = strchr(line, '\n') + 1)
    if (strncmp(line, "input ", 6) == 0 && sscanf(line + 6, "%67s", name) == 1 &&
        !find(now, "input", name, buf, sizeof buf)) {
      snprintf(err, errlen, "the checkpoint's run had %s (give it again)", name);
      return DSANA_EUSAGE;
    }
  return 0;
}

static int check_identity(const struct cli_run *r, const struct ckpt_manifest *m) {
  char err[2 * CONFIG_PATH_MAX + 256], app[MSG_NAME_MAX];
  const char *who = r->app->name;
  if (!m->identity[0]) {
    fprintf(stderr, "dsana %s: warning: %s was written by an older dsana: its inputs and options are not checked\n",
            who, r->cfg.resume_dir);
    return 0;
  }
  if (sscanf(m->identity, "app %63s", app) == 1 && strcmp(app, who) != 0) {
    fprintf(stderr, "dsana %s: cannot resume: %s holds a checkpoint of '%s'\n", who, r->cfg.resume_dir, app);
    return DSANA_EUSAGE;
  }
  /* another input first: it explains a changed parameter default too */
  int rc = compare_lines(m->identity, r->cfg.job_identity, "input", err, sizeof err);
  if (!rc)
    rc = compare_inputs(m->identity, r->cfg.job_identity, err, sizeof err);
  if (!rc)
    rc = compare_lines(m->identity, r->cfg.job_identity, "param", err, sizeof err);
  if (rc)
    fprintf(stderr, "dsana %s: cannot resume from %s: %s\n", who, r->cfg.resume_dir, err);
  return rc;
}

int cli_setup_checkpoints(struct cli_run *r) {
  struct run_config *cfg = &r->cfg;
  const char *who = r->app->name;
  if (cfg->checkpoint_dir[0] && mkdir(cfg->checkpoint_dir, 0755) != 0 && errno != EEXIST) {
    fprintf(stderr, "dsana %s: --checkpoint %s: %s\n", who, cfg->checkpoint_dir, strerror(errno));
    return DSANA_EIO;
  }
  int rc =
      cfg->checkpoint_dir[0] || cfg->resume_dir[0] ? build_identity(r, cfg->job_identity, sizeof cfg->job_identity) : 0;
  if (rc == DSANA_ERANGE)
    fprintf(stderr, "dsana %s: too many options to record in a checkpoint\n", who);
  if (rc || !cfg->resume_dir[0])
    return rc;
  static struct ckpt_manifest m; /* 12 KiB */
  char err[1400];
  rc = ckpt_validate(cfg->resume_dir, &m, err, sizeof err);
  if (!rc && m.n_servers != cfg->n_servers) {
    snprintf(err, sizeof err, "%s: the checkpoint has %u servers; resume with --servers %u", cfg->resume_dir,
             m.n_servers, m.n_servers);
    rc = DSANA_EINVAL;
  }
  if (rc) {
    fprintf(stderr, "dsana %s: cannot resume: %s\n", who, err);
    return rc;
  }
  if ((rc = check_identity(r, &m)) != 0)
    return rc;
  config_set_resume_point(cfg, m.iter, m.globals, m.residual);
  return 0;
}

int cli_check_resume_cap(const struct cli_run *r, uint32_t max_iter) {
  if (!r->cfg.resume_iter || !max_iter || max_iter > r->cfg.resume_iter)
    return 0;
  fprintf(stderr,
          "dsana %s: --max-iter %u: the checkpoint in %s is at iteration %u already (resume with "
          "--max-iter above %u)\n",
          r->app->name, max_iter, r->cfg.resume_dir, r->cfg.resume_iter, r->cfg.resume_iter);
  return DSANA_EUSAGE;
}

/* Undo put_escaped in place. */
static void unescape(char *s) {
  char *w = s;
  for (const char *c = s; *c; c++) {
    unsigned v;
    if (c[0] == '\\' && c[1] == 'x' && sscanf(c + 2, "%2x", &v) == 1 && c[2] && c[3]) {
      *w++ = (char)v;
      c += 3;
    } else {
      *w++ = *c;
    }
  }
  *w = '\0';
}

static bool given(const struct cli_run *r, const char *name) {
  for (uint32_t i = 0; i < r->args.n; i++)
    if (strcmp(r->args.name[i], name) == 0)
      return true;
  return false;
}

/* Take one recorded line "KIND NAME REST" the user did not give again;
 * what was taken is appended to `took` for the note. */
static int fill_line(struct cli_run *r, const char *kind, const char *name, char *rest, struct text *took) {
  const struct dsana_app *app = r->app;
  bool input = strcmp(kind, "input") == 0;
  if (input) {
    int at = 0;
    unsigned long long size;
    unsigned crc;
    if (sscanf(rest, "%llu %x %n", &size, &crc, &at) != 2 || !at)
      return 0;
    rest += at;
  }
  bool positional = input && strcmp(name, app->args ? app->args : "") == 0;
  const char *opt = positional ? "" : name + (input && strncmp(name, "--", 2) == 0 ? 2 : 0);
  const struct dsana_app_option *o = positional ? NULL : app_option(app, opt);
  if (given(r, opt) || (!positional && !o) || (o && (o->kind == DSANA_OPT_PARAM) != !strcmp(kind, "param")))
    return 0;
  unescape(rest);
  if (o && !o->arg && strcmp(rest, "on") != 0)
    return 0; /* a flag recorded off: not given is off */
  if (o && o->arg && !rest[0])
    return 0; /* an option without default, not given then either */
  if (o && o->arg && o->kind == DSANA_OPT_PARAM && o->default_value && !strcmp(rest, o->default_value))
    return 0; /* the default: nothing to say */
  if (input && access(rest, R_OK) != 0) {
    fprintf(stderr, "dsana %s: cannot resume from %s: its %s %s: %s (give the input's new path)\n", cli_command(r),
            r->cfg.resume_dir, positional ? "input" : name, rest, strerror(errno));
    return DSANA_EUSAGE;
  }
  put(took, positional ? " %s" : o->arg ? " --%s %s" : " --%s", positional ? rest : opt, rest);
  char origin[2 * CONFIG_PATH_MAX + 64];
  snprintf(origin, sizeof origin, "cannot resume from %s: %s/manifest records", r->cfg.resume_dir, r->cfg.resume_dir);
  return cli_add_app_arg_from(r, positional ? NULL : opt, o && !o->arg ? "" : rest, origin);
}

int cli_resume_fill(struct cli_run *r) {
  static struct ckpt_manifest m; /* 12 KiB */
  char err[1400], app[MSG_NAME_MAX], took_buf[2048];
  struct text took = {.p = took_buf, .cap = sizeof took_buf};
  took_buf[0] = '\0';
  /* an unreadable or foreign checkpoint: cli_setup_checkpoints says why */
  if (ckpt_read_manifest(r->cfg.resume_dir, &m, err, sizeof err) != 0 || !m.identity[0] ||
      sscanf(m.identity, "app %63s", app) != 1 || strcmp(app, r->app->name) != 0)
    return 0;
  if (!r->servers_given && m.n_servers && m.n_servers != r->cfg.n_servers) {
    r->cfg.n_servers = m.n_servers;
    put(&took, " --servers %u", m.n_servers);
  }
  char line[CKPT_IDENTITY_MAX], kind[16], name[MSG_NAME_MAX + 4];
  for (const char *l = m.identity; *l && strchr(l, '\n'); l = strchr(l, '\n') + 1) {
    snprintf(line, sizeof line, "%.*s", (int)(strchr(l, '\n') - l), l);
    int at = 0;
    if (sscanf(line, "%15s %67s %n", kind, name, &at) != 2 || !at || !strcmp(kind, "app"))
      continue;
    if (fill_line(r, kind, name, line + at, &took) != 0)
      return DSANA_EUSAGE;
  }
  if (took_buf[0] && !r->cfg.quiet)
    fprintf(stderr, "dsana %s: resuming with what the checkpoint's run had:%s%s\n", cli_command(r), took_buf,
            took.full ? " ..." : "");
  return 0;
}
