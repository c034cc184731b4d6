"""Running a dsana job from Python: the runtime options every call takes
(workers, servers, mode, scenario, threads) and the one place a job starts
(_dsana.run), with the CLI's messages turned into exceptions and warnings."""
import json
import os
import threading
import warnings

from . import _dsana

_MODES = ("dsana", "bsp")


def runtime_args(workers=None, servers=None, mode=None, scenario=None, threads=None):
    """The command-line options for the runtime settings given (None: the
    CLI's default). Values are checked by the CLI's own parser."""
    args = []
    for flag, value in (("--workers", workers), ("--servers", servers), ("--threads", threads)):
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{flag[2:]}: an integer, not {type(value).__name__}")
            args += [flag, str(value)]
    if mode is not None:
        if not isinstance(mode, str):
            raise TypeError(f"mode: a string ({' or '.join(_MODES)}), not {type(mode).__name__}")
        args += ["--mode", mode]
    if scenario is not None:
        args += ["--scenario", str(scenario)]
    return args


def number(value):
    """A number as the CLI reads it back exactly."""
    return repr(float(value))


class _MetricsPipe:
    """The job's --metrics as a pipe this process reads while the job runs
    (no file): its "iteration" lines, parsed, once the job ended."""

    def __init__(self):
        self._r, self._w = os.pipe()
        self._lines = []
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def path(self):
        return f"/proc/self/fd/{self._w}"

    def _read(self):
        with os.fdopen(self._r, "r") as f:  # the GIL is free while the job runs
            self._lines += [line for line in f if '"type":"iteration"' in line]

    def iterations(self):
        """After the job: close this end, wait for the reader, the lines."""
        os.close(self._w)
        self._thread.join()
        return [json.loads(line) for line in self._lines]


def run(argv, names=None, warning_class=RuntimeWarning, quiet_not_converged=False, verbose=False,
        want_iterations=False):
    """Run `dsana argv...` in this process; returns (values, iterations,
    converged, residual), and with want_iterations a fifth: the metrics of
    every iteration (dicts as --metrics writes them). names maps the
    in-memory sources' names to what the caller calls them ("G", "X") in
    messages. verbose: the job prints as the command does (its iteration
    table, or a row an epoch, and the summary on stdout, a live progress
    line and any warning on stderr)."""
    if verbose:
        argv = [a for a in argv if a != "\0quiet"]
    else:
        argv = ["--quiet" if a == "\0quiet" else a for a in argv]
    pipe = _MetricsPipe() if want_iterations else None
    if pipe is not None:
        argv = argv + ["--metrics", pipe.path()]
    try:
        values, iters, converged, residual, warned = _dsana.run(argv, bool(verbose))
    except (ValueError, OSError, RuntimeError) as e:
        msg = str(e)
        for mem, shown in (names or {}).items():
            msg = msg.replace(mem, shown)
        raise type(e)(msg) from None
    finally:
        per_iter = pipe.iterations() if pipe is not None else None
    for line in warned.splitlines():
        if quiet_not_converged and "not converged" in line:
            continue  # the caller raises or warns in its own terms
        for mem, shown in (names or {}).items():
            line = line.replace(mem, shown)
        warnings.warn(line, warning_class, stacklevel=3)
    if pipe is not None:
        return values, iters, converged, residual, per_iter
    return values, iters, converged, residual
