#!/usr/bin/env python3
"""bench/tools/timeline.py TRACE.json [--iter N] [--out FILE.svg] [--width PX]

Draws one iteration of a dsana run's timeline (the `--trace` file that
Perfetto opens) as a standalone SVG picture: one lane per role thread
(scheduler, servers, workers), its spans coloured by kind -- compute (tasks,
blocks, the servers' finish), transfer out (chunks sent, pushes) and in (pieces
and pushes taken in) -- on a time axis in milliseconds from the iteration's
start. Spans of the next iteration that begin inside this one (run-ahead:
the next chunks streaming while this iteration computes) are drawn paler, so
the overlap shows. Without --iter it takes the iteration whose length is the
median of the run's steady iterations (from the second on).

Standard library only; docs/design.md shows one such picture.
"""
import argparse
import json
import statistics
import sys
from xml.sax.saxutils import escape

KINDS = {  # span name -> (legend, colour)
    "task": ("compute", "#4C78A8"),
    "block": ("compute", "#4C78A8"),
    "task begin": ("compute (set-up)", "#9ECAE9"),
    "task end": ("compute", "#4C78A8"),
    "finish": ("server finish", "#54A24B"),
    "chunk send": ("chunk sent", "#F58518"),
    "chunk send (compressed)": ("chunk sent", "#F58518"),
    "shared buffer answer": ("chunk sent", "#F58518"),
    "piece in": ("chunk taken in", "#E45756"),
    "push": ("push sent", "#B279A2"),
    "push in": ("push taken in", "#72B7B2"),
}


def die(msg):
    sys.stderr.write(f"timeline.py: {msg}\n")
    sys.exit(2)


def load(path):
    try:
        with open(path) as f:
            t = json.load(f)
    except (OSError, ValueError) as e:
        die(f"{path}: {e}")
    ev = t.get("traceEvents") if isinstance(t, dict) else t
    if not isinstance(ev, list):
        die(f"{path}: no traceEvents list")
    return ev


def lanes_of(ev):
    names = {}
    for e in ev:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
    order = sorted(names, key=lambda k: (k[0], k[1]))
    return [(k, names[k]) for k in order]


def pick_iteration(ev, want):
    its = {e["args"]["iter"]: (e["ts"], e["ts"] + e["dur"])
           for e in ev if e.get("ph") == "X" and e.get("name") == "iteration"}
    if not its:
        die("the trace has no iteration spans (was it written by dsana --trace?)")
    if want is not None:
        if want not in its:
            die(f"no iteration {want} in the trace (it has {min(its)}..{max(its)})")
        return want, its[want]
    steady = sorted(i for i in its if i >= 2) or sorted(its)
    med = statistics.median_low([its[i][1] - its[i][0] for i in steady])
    i = next(i for i in steady if its[i][1] - its[i][0] == med)
    return i, its[i]


def svg(ev, it, span, width):
    t0, t1 = span
    lanes = lanes_of(ev)
    lane_h, left, top = 18, 110, 28
    scale = (width - left - 10) / (t1 - t0)
    height = top + lane_h * len(lanes) + 60
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="16">iteration {it}: {(t1 - t0) / 1e3:.2f} ms</text>']
    row = {k: i for i, (k, _) in enumerate(lanes)}
    for i, (_, name) in enumerate(lanes):
        y = top + i * lane_h
        out.append(f'<text x="4" y="{y + 12}">{escape(name)}</text>')
        out.append(f'<line x1="{left}" x2="{width - 10}" y1="{y + lane_h - 1}" y2="{y + lane_h - 1}" stroke="#eee"/>')
    for e in ev:
        if e.get("ph") != "X" or e.get("name") not in KINDS or (e["pid"], e["tid"]) not in row:
            continue
        ei = e.get("args", {}).get("iter")
        a, b = e["ts"], e["ts"] + max(e["dur"], 0)
        if b < t0 or a > t1 or ei not in (it, it + 1):
            continue
        x = left + (max(a, t0) - t0) * scale
        w = max((min(b, t1) - max(a, t0)) * scale, 0.8)
        y = top + row[(e["pid"], e["tid"])] * lane_h + 2
        op = "1" if ei == it else "0.35"
        out.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{lane_h - 5}" '
                   f'fill="{KINDS[e["name"]][1]}" fill-opacity="{op}"><title>{escape(e["name"])} '
                   f'(iteration {ei}) {(a - t0) / 1e3:.3f}-{(b - t0) / 1e3:.3f} ms</title></rect>')
    ybase = top + lane_h * len(lanes) + 14
    step = 0.5 if (t1 - t0) / 1e3 <= 5 else 1.0 if (t1 - t0) / 1e3 <= 12 else 5.0
    ms = 0.0
    while ms * 1e3 <= t1 - t0:
        x = left + ms * 1e3 * scale
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{ybase - 10}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{ybase}" text-anchor="middle">{ms:g}</text>')
        ms += step
    out.append(f'<text x="{width - 10}" y="{ybase}" text-anchor="end">ms</text>')
    x = left
    seen = set()
    for legend, colour in KINDS.values():
        if legend in seen:
            continue
        seen.add(legend)
        out.append(f'<rect x="{x}" y="{ybase + 12}" width="10" height="10" fill="{colour}"/>')
        out.append(f'<text x="{x + 14}" y="{ybase + 21}">{escape(legend)}</text>')
        x += 14 + 7 * len(legend) + 14
    out.append(f'<text x="{left}" y="{ybase + 40}">paler: the next iteration\'s spans '
               f'(its chunks streaming in while this one computes)</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--iter", type=int)
    ap.add_argument("--out")
    ap.add_argument("--width", type=int, default=900)
    a = ap.parse_args()
    if a.width < 300:
        die("--width must be at least 300")
    ev = load(a.trace)
    try:
        it, span = pick_iteration(ev, a.iter)
        text = svg(ev, it, span, a.width)
    except (KeyError, TypeError, AttributeError) as e:
        die(f"{a.trace}: not a dsana trace (an event lacks {e})")
    if a.out:
        try:
            with open(a.out, "w") as f:
                f.write(text)
        except OSError as e:
            die(f"{a.out}: {e}")
        print(f"{a.out}: iteration {it}, {(span[1] - span[0]) / 1e3:.2f} ms")
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
