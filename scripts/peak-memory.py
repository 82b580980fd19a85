#!/usr/bin/env python3
"""Runs a command and reports its wall time and the peak memory of its whole process tree: the
command and every process it starts, summed, sampled from /proc every 0.1 s. GNU time's "maximum
resident set size" is that of the largest single process, which undercounts a command that works
in several processes (fairseq-preprocess --workers N, a Python multiprocessing pool). Summed
resident sizes overcount instead: forked workers share their parent's pages, and each counts
them. The proportional set size (PSS, /proc/PID/smaps_rollup) divides a shared page among the
processes sharing it, so its sum is what the tree takes; both sums are reported.

    scripts/peak-memory.py COMMAND [ARG...]

The command runs in a session of its own, so that its tree is the processes of that session.
Prints to stderr, after the command's own output, one line:
    peak-memory: wall 12.34 s, peak PSS 567890 kB, peak RSS 612345 kB, 3 processes at most
Exit status: the command's (128 + N when signal N ended it).
"""
import os
import subprocess
import sys
import time


def session_of(pid):
    with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
        # pid (comm) state ppid pgrp session ...: comm may hold spaces and parentheses.
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[3])


def memory_kb(pid):
    """(PSS, RSS) of a process; (0, 0) for a zombie, which has no memory left."""
    pss = rss = 0
    with open(f"/proc/{pid}/smaps_rollup", encoding="ascii", errors="replace") as rollup:
        for line in rollup:
            if line.startswith("Pss:"):
                pss = int(line.split()[1])
            elif line.startswith("Rss:"):
                rss = int(line.split()[1])
    return pss, rss


def tree_memory_kb(session):
    pss, rss, processes = 0, 0, 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if session_of(entry) == session:
                process_pss, process_rss = memory_kb(entry)
                pss += process_pss
                rss += process_rss
                processes += 1
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            continue  # ended while being read
    return pss, rss, processes


def main():
    if len(sys.argv) < 2:
        print("usage: scripts/peak-memory.py COMMAND [ARG...]", file=sys.stderr)
        return 2
    start = time.monotonic()
    child = subprocess.Popen(sys.argv[1:], start_new_session=True)
    peak_pss, peak_rss, most_processes = 0, 0, 0
    while child.poll() is None:
        pss, rss, processes = tree_memory_kb(child.pid)
        peak_pss, peak_rss = max(peak_pss, pss), max(peak_rss, rss)
        most_processes = max(most_processes, processes)
        time.sleep(0.1)
    wall = time.monotonic() - start
    print(f"peak-memory: wall {wall:.2f} s, peak PSS {peak_pss} kB, peak RSS {peak_rss} kB, "
          f"{most_processes} processes at most", file=sys.stderr)
    return child.returncode if child.returncode >= 0 else 128 - child.returncode


if __name__ == "__main__":
    sys.exit(main())
