/* bench/tools/zmq_rtt.c — the ZeroMQ round trip between two processes on this machine.
 *
 * It is the yardstick of bench/guard.sh: the fixed cost of a dsana iteration is
 * reported as a multiple of this round trip, so that the guard compares a ratio
 * (stable on a busy, shared host) instead of an absolute time. A child process
 * binds a REP socket on an ipc:// endpoint in a fresh temporary directory (or,
 * with `tcp`, on tcp://127.0.0.1 with an ephemeral port); the parent connects a
 * REQ socket, does 200 warm-up round trips of a 64-byte message, then N timed
 * ones (CLOCK_MONOTONIC), and prints the median in microseconds. The child, the
 * ipc file and the temporary directory are removed on every exit path.
 *
 *   zmq_rtt [ipc|tcp] [-n N] [--all]
 *
 * stdout: one number, the median round trip in µs; with --all three numbers,
 * "p10 median p90" in µs. Errors: one line on stderr, exit status 1.
 * Built by `cmake --build DIR --target zmq_rtt` (EXCLUDE_FROM_ALL).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#define MSG_BYTES 64
#define WARMUP 200
#define DEFAULT_N 2000
#define MAX_N 10000000L
#define TIMEOUT_MS 5000
#define ENDPOINT_MAX 256

static volatile sig_atomic_t g_stop;
static pid_t g_child = -1;
static char g_dir[200];
static char g_ipc_path[224];
static int g_child_status = -1; /* wait status of the reaped child, -1 if killed by us */

static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
}

/* Kill (if still running) and reap the child, remove the ipc file and the directory. */
static void cleanup(void)
{
    if (g_child > 0) {
        int status;
        /* The child leaves on the quit message; give it up to 2 s, then kill it. */
        for (int i = 0; i < 200; i++) {
            pid_t r = waitpid(g_child, &status, WNOHANG);
            if (r == g_child) {
                g_child_status = status;
                goto reaped;
            }
            if (r < 0 && errno != EINTR)
                goto reaped;
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        kill(g_child, SIGKILL);
        while (waitpid(g_child, &status, 0) < 0 && errno == EINTR) {
        }
    reaped:
        g_child = -1;
    }
    if (g_ipc_path[0] != '\0') {
        unlink(g_ipc_path);
        g_ipc_path[0] = '\0';
    }
    if (g_dir[0] != '\0') {
        rmdir(g_dir);
        g_dir[0] = '\0';
    }
}

static void fail(const char *what, const char *detail)
{
    cleanup();
    fprintf(stderr, "zmq_rtt: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static void usage(FILE *f)
{
    fputs("usage: zmq_rtt [ipc|tcp] [-n N] [--all]\n"
          "  ZeroMQ REQ/REP round trip of a 64-byte message between two processes:\n"
          "  200 warm-up round trips, then N timed ones (default 2000).\n"
          "  ipc  (default) ipc:// endpoint in a fresh temporary directory\n"
          "  tcp  tcp://127.0.0.1 with an ephemeral port (loopback only)\n"
          "  --all  print p10, median and p90 (µs) instead of the median alone\n",
          f);
}

/* ---- child: REP echo server ------------------------------------------------------ */

/* Report to the parent through the pipe: "OK endpoint" or "E message". */
static void child_report(int fd, const char *tag, const char *text)
{
    char buf[ENDPOINT_MAX + 64];
    int len = snprintf(buf, sizeof buf, "%s %s", tag, text);
    if (len < 0)
        return;
    size_t n = (size_t)len < sizeof buf ? (size_t)len : sizeof buf - 1;
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, buf + off, n - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        off += (size_t)w;
    }
}

static int child_main(int fd, const char *bind_to)
{
    /* Never outlive the parent (it may be killed by a signal we cannot catch). */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1)
        return 1;
    void *ctx = zmq_ctx_new();
    if (!ctx) {
        child_report(fd, "E", "zmq_ctx_new failed");
        return 1;
    }
    void *rep = zmq_socket(ctx, ZMQ_REP);
    int linger = 0, rcvtimeo = 60 * 1000;
    if (!rep || zmq_setsockopt(rep, ZMQ_LINGER, &linger, sizeof linger) != 0 ||
        zmq_setsockopt(rep, ZMQ_RCVTIMEO, &rcvtimeo, sizeof rcvtimeo) != 0) {
        child_report(fd, "E", zmq_strerror(zmq_errno()));
        return 1;
    }
    if (zmq_bind(rep, bind_to) != 0) {
        char msg[ENDPOINT_MAX + 64];
        snprintf(msg, sizeof msg, "cannot bind %s: %s", bind_to, zmq_strerror(zmq_errno()));
        child_report(fd, "E", msg);
        zmq_close(rep);
        zmq_ctx_term(ctx);
        return 1;
    }
    char endpoint[ENDPOINT_MAX];
    size_t elen = sizeof endpoint;
    if (zmq_getsockopt(rep, ZMQ_LAST_ENDPOINT, endpoint, &elen) != 0) {
        child_report(fd, "E", zmq_strerror(zmq_errno()));
        zmq_close(rep);
        zmq_ctx_term(ctx);
        return 1;
    }
    child_report(fd, "OK", endpoint);
    close(fd);

    char buf[MSG_BYTES];
    int rc = 0;
    for (;;) {
        int n = zmq_recv(rep, buf, sizeof buf, 0);
        if (n < 0) {
            rc = 1; /* the parent went away or a timeout: it reports */
            break;
        }
        size_t len = (size_t)n < sizeof buf ? (size_t)n : sizeof buf;
        if (zmq_send(rep, buf, len, 0) < 0) {
            rc = 1;
            break;
        }
        if (n == 0) /* the quit message */
            break;
    }
    zmq_close(rep); /* unlinks the ipc file */
    zmq_ctx_term(ctx);
    return rc;
}

/* ---- parent ------------------------------------------------------------------------ */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Percentile p in [0,1] of sorted v[0..n-1], linear interpolation between ranks. */
static double percentile(const double *v, size_t n, double p)
{
    double pos = p * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo + 1 >= n)
        return v[n - 1];
    double frac = pos - (double)lo;
    return v[lo] + (v[lo + 1] - v[lo]) * frac;
}

/* Why a round trip failed: the child's fate if it is gone, else ZeroMQ's error. */
static void rtt_fail(const char *what)
{
    int err = zmq_errno();
    if (g_stop)
        fail("interrupted", NULL);
    if (g_child > 0) {
        int status;
        pid_t r = waitpid(g_child, &status, WNOHANG);
        if (r == g_child) {
            g_child = -1;
            char detail[64];
            if (WIFSIGNALED(status))
                snprintf(detail, sizeof detail, "killed by signal %d", WTERMSIG(status));
            else
                snprintf(detail, sizeof detail, "exit status %d", WEXITSTATUS(status));
            fail("the REP child died", detail);
        }
    }
    fail(what, err == EAGAIN ? "timed out (5 s)" : zmq_strerror(err));
}

static void round_trip(void *req, const char *out, char *in, size_t len)
{
    if (zmq_send(req, out, len, 0) < 0)
        rtt_fail("zmq_send");
    int n = zmq_recv(req, in, MSG_BYTES, 0);
    if (n < 0)
        rtt_fail("zmq_recv");
    if ((size_t)n != len || memcmp(in, out, len) != 0)
        fail("zmq_recv", "the reply differs from the request");
}

int main(int argc, char **argv)
{
    int tcp = 0, all = 0;
    long count = DEFAULT_N;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "ipc") == 0) {
            tcp = 0;
        } else if (strcmp(a, "tcp") == 0) {
            tcp = 1;
        } else if (strcmp(a, "--all") == 0) {
            all = 1;
        } else if (strcmp(a, "-n") == 0 || strcmp(a, "--count") == 0) {
            if (i + 1 >= argc)
                fail(a, "needs a number");
            char *end;
            errno = 0;
            count = strtol(argv[++i], &end, 10);
            if (errno != 0 || *end != '\0' || end == argv[i] || count < 1 || count > MAX_N)
                fail(a, "needs an integer between 1 and 10000000");
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "zmq_rtt: unknown argument '%s' (see --help)\n", a);
            return 1;
        }
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    char bind_to[ENDPOINT_MAX];
    if (tcp) {
        snprintf(bind_to, sizeof bind_to, "tcp://127.0.0.1:*");
    } else {
        const char *tmp = getenv("TMPDIR");
        if (!tmp || !*tmp)
            tmp = "/tmp";
        int len = snprintf(g_dir, sizeof g_dir, "%s/zmq_rtt.XXXXXX", tmp);
        if (len < 0 || (size_t)len >= sizeof g_dir) {
            g_dir[0] = '\0';
            fail("TMPDIR is too long", NULL);
        }
        if (!mkdtemp(g_dir)) {
            int err = errno;
            g_dir[0] = '\0';
            fprintf(stderr, "zmq_rtt: cannot create a directory in %s: %s\n", tmp, strerror(err));
            return 1;
        }
        /* sockaddr_un holds 108 bytes: keep the path well inside */
        len = snprintf(g_ipc_path, sizeof g_ipc_path, "%s/rtt.sock", g_dir);
        if (len < 0 || (size_t)len >= 100) {
            g_ipc_path[0] = '\0';
            fail("the ipc path is too long (set TMPDIR to a shorter directory)", NULL);
        }
        snprintf(bind_to, sizeof bind_to, "ipc://%s", g_ipc_path);
    }

    int pfd[2];
    if (pipe(pfd) != 0)
        fail("pipe", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        fail("fork", strerror(errno));
    if (pid == 0) {
        close(pfd[0]);
        _exit(child_main(pfd[1], bind_to));
    }
    g_child = pid;
    close(pfd[1]);

    /* The child's report: "OK endpoint" once bound, or "E message". */
    char report[ENDPOINT_MAX + 64];
    size_t got = 0;
    for (;;) {
        ssize_t r = read(pfd[0], report + got, sizeof report - 1 - got);
        if (r < 0 && errno == EINTR && !g_stop)
            continue;
        if (r < 0) {
            close(pfd[0]);
            fail(g_stop ? "interrupted" : "read from the child", g_stop ? NULL : strerror(errno));
        }
        if (r == 0 || got + (size_t)r >= sizeof report - 1) {
            got += (size_t)r;
            break;
        }
        got += (size_t)r;
    }
    close(pfd[0]);
    report[got] = '\0';
    if (strncmp(report, "E ", 2) == 0)
        fail("child", report + 2);
    if (strncmp(report, "OK ", 3) != 0)
        fail("the REP child exited before binding", NULL);
    const char *endpoint = report + 3;

    void *ctx = zmq_ctx_new();
    if (!ctx)
        fail("zmq_ctx_new", zmq_strerror(zmq_errno()));
    void *req = zmq_socket(ctx, ZMQ_REQ);
    int linger = 0, timeo = TIMEOUT_MS;
    if (!req || zmq_setsockopt(req, ZMQ_LINGER, &linger, sizeof linger) != 0 ||
        zmq_setsockopt(req, ZMQ_RCVTIMEO, &timeo, sizeof timeo) != 0 ||
        zmq_setsockopt(req, ZMQ_SNDTIMEO, &timeo, sizeof timeo) != 0)
        fail("zmq_socket", zmq_strerror(zmq_errno()));
    if (zmq_connect(req, endpoint) != 0)
        fail(endpoint, zmq_strerror(zmq_errno()));

    size_t n = (size_t)count;
    double *rtt = malloc(n * sizeof *rtt);
    if (!rtt)
        fail("out of memory", NULL);
    char out[MSG_BYTES], in[MSG_BYTES];
    for (size_t i = 0; i < sizeof out; i++)
        out[i] = (char)('a' + (char)(i % 26));

    for (int i = 0; i < WARMUP; i++) {
        if (g_stop)
            rtt_fail("interrupted");
        round_trip(req, out, in, sizeof out);
    }
    for (size_t i = 0; i < n; i++) {
        if (g_stop)
            rtt_fail("interrupted");
        double t0 = now_s();
        round_trip(req, out, in, sizeof out);
        rtt[i] = (now_s() - t0) * 1e6;
    }
    /* Quit: an empty message, echoed; the child then closes its socket and exits. */
    round_trip(req, out, in, 0);
    zmq_close(req);
    zmq_ctx_term(ctx);

    cleanup(); /* reaps the child (killed if not gone within 2 s) */
    if (g_child_status < 0 || !WIFEXITED(g_child_status) || WEXITSTATUS(g_child_status) != 0) {
        free(rtt);
        fprintf(stderr, "zmq_rtt: the REP child did not exit cleanly (wait status %d)\n", g_child_status);
        return 1;
    }

    qsort(rtt, n, sizeof *rtt, cmp_double);
    if (all)
        printf("%.1f %.1f %.1f\n", percentile(rtt, n, 0.10), percentile(rtt, n, 0.50),
               percentile(rtt, n, 0.90));
    else
        printf("%.1f\n", percentile(rtt, n, 0.50));
    free(rtt);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "zmq_rtt: cannot write to stdout\n");
        return 1;
    }
    return 0;
}
