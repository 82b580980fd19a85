#!/usr/bin/env python3
"""Sums a Chrome trace of LibTorch's profiler per operator: self time (an operator's own time,
without the operators it called) per training step, inside autograd's backward pass or outside it
(forward, loss, optimiser). Given two traces, prints them side by side with the difference, to
find where one build spends its extra time.

    nmt bench train --config C --steps 40 --profile a.json    # writes min(steps, 20) steps
    scripts/profile-ops.py a.json --steps 20
    scripts/profile-ops.py old.json new.json --steps 20 --top 25

A trace (gzip'd when its name ends in .gz) is a JSON array of events or an object with
"traceEvents"; complete events ("ph": "X") with "ts" and "dur" in microseconds are read, nested by
time on each thread. An event is in the backward pass when it or an enclosing event is an autograd function ("...Backward0", or
"autograd::engine::evaluate_function: ..."). Exit status 2 for unreadable input."""
import argparse
import gzip
import json
import sys
from collections import defaultdict


def fail(message):
    print(f"profile-ops: {message}", file=sys.stderr)
    sys.exit(2)


def is_backward_node(name):
    return "Backward" in name or name.startswith("autograd::engine::evaluate_function")


def load_events(path):
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            trace = json.load(f)
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as error:
        fail(f"{path}: {error}")
    events = trace.get("traceEvents") if isinstance(trace, dict) else trace
    if not isinstance(events, list):
        fail(f"{path}: not a Chrome trace (no list of events)")
    complete = []
    for index, event in enumerate(events):
        if not isinstance(event, dict) or event.get("ph") != "X":
            continue
        try:
            complete.append((float(event["ts"]), float(event["dur"]), str(event["name"]),
                             event.get("tid", 0)))
        except (KeyError, TypeError, ValueError):
            fail(f"{path}: event {index} lacks a name, ts or dur")
    if not complete:
        fail(f"{path}: no complete (\"ph\": \"X\") events")
    return complete


def self_times(events):
    """{(phase, name): [self microseconds, calls]} with phase "backward" or "outside"."""
    totals = defaultdict(lambda: [0.0, 0])
    by_thread = defaultdict(list)
    for event in events:
        by_thread[event[3]].append(event)
    for thread_events in by_thread.values():
        # Parents first: earlier start, then the longer of two that start together.
        thread_events.sort(key=lambda e: (e[0], -e[1]))
        stack = []  # [end, name, children's time, in backward]

        def close(frame):
            end, name, children, backward, duration = frame
            key = ("backward" if backward else "outside", name)
            totals[key][0] += max(0.0, duration - children)
            totals[key][1] += 1

        for start, duration, name, _ in thread_events:
            while stack and stack[-1][0] <= start:
                close(stack.pop())
            if stack:
                stack[-1][2] += duration
            backward = is_backward_node(name) or (stack and stack[-1][3])
            stack.append([start + duration, name, 0.0, bool(backward), duration])
        while stack:
            close(stack.pop())
    return totals


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("traces", nargs="+", metavar="TRACE", help="one or two trace files")
    parser.add_argument("--steps", type=int, default=1,
                        help="training steps the traces hold, to print per step [1]")
    parser.add_argument("--top", type=int, default=30, help="operators shown per phase [30]")
    args = parser.parse_args()
    if len(args.traces) > 2:
        parser.error("give one trace, or two to compare")
    if args.steps < 1 or args.top < 1:
        parser.error("--steps and --top must be at least 1")
    tables = [self_times(load_events(path)) for path in args.traces]
    per_step = 1000.0 * args.steps  # microseconds in a trace -> milliseconds per step

    names = args.traces if len(tables) == 2 else [args.traces[0]]
    header = "| phase | operator | calls/step | " + " | ".join(
        f"ms/step {name}" for name in names)
    header += " | difference |" if len(tables) == 2 else " |"
    print(header)
    print("| --- | --- | ---: | " + " | ".join("---:" for _ in names) +
          (" | ---: |" if len(tables) == 2 else " |"))
    for phase in ("backward", "outside"):
        keys = {key for table in tables for key in table if key[0] == phase}
        totals = [sum(table[key][0] for key in keys if key in table) for table in tables]

        def order(key):  # the largest time (or difference) first; ties by name, not hash order
            times = [table.get(key, [0.0, 0])[0] for table in tables]
            return (-(abs(times[-1] - times[0]) if len(times) == 2 else times[0]), key[1])

        for key in sorted(keys, key=order)[:args.top]:
            times = [table.get(key, [0.0, 0])[0] / per_step for table in tables]
            calls = tables[0].get(key, tables[-1].get(key))[1] / args.steps
            row = f"| {phase} | {key[1]} | {calls:g} | " + " | ".join(f"{t:.2f}" for t in times)
            print(row + (f" | {times[1] - times[0]:+.2f} |" if len(times) == 2 else " |"))
        row = f"| {phase} | all | | " + " | ".join(f"{t / per_step:.2f}" for t in totals)
        print(row + (f" | {(totals[1] - totals[0]) / per_step:+.2f} |" if len(totals) == 2
                     else " |"))


if __name__ == "__main__":
    main()
