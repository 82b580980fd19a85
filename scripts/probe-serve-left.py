#!/usr/bin/env python3
"""Clients that leave `nmt serve` with costly requests, and an ordinary request sent after them.

Issue 66's probe: CLIENTS connections each send POST /v1/translate with 64 texts of about 2,500
characters (the run's test sources joined, "split": false, beam 16) and close LINGER seconds later,
when a batch of theirs is with the decoder; HOLD seconds after that one ordinary request ("I am
hungry.") is sent and timed. The server's CPU seconds over the
WINDOW seconds after the clients left show whether their work went on. Each binary given with
--nmt is run ROUNDS times, the binaries alternating, each round on a fresh server.

    scripts/probe-serve-left.py RUN --nmt BEFORE --nmt AFTER [--out DIR] [--clients 20]
        [--rounds 2] [--linger 0.5] [--hold 0.5] [--window 10]

Writes DIR (default data/benchmarks/serve-left-<date>/): command.txt, machine.txt (date, CPU and
its ISA flags, commit, each binary's --version), results.json and results.md. Python's standard
library only.
"""
import argparse
import datetime
import http.client
import json
import os
import pathlib
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_process import costly_body, machine_text, send_and_leave, start_server  # noqa: E402

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def one_round(nmt, run, body, args, log_path):
    server, port = start_server(nmt, run, [], log_path, "probe-serve-left")
    try:
        before = cpu_seconds(server.pid)
        leaving = [threading.Thread(target=send_and_leave, args=(port, body, args.linger))
                   for _ in range(args.clients)]
        for thread in leaving:
            thread.start()
        for thread in leaving:
            thread.join()
        left_at = time.monotonic()
        time.sleep(args.hold)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        start = time.monotonic()
        connection.request("POST", "/v1/translate", json.dumps({"q": "I am hungry."}),
                           {"Content-Type": "application/json"})
        answer = connection.getresponse()
        answer.read()
        seconds = time.monotonic() - start
        time.sleep(max(0.0, args.window - (time.monotonic() - left_at)))
        busy = cpu_seconds(server.pid) - before
        return {"status": answer.status, "ordinary_seconds": round(seconds, 3),
                f"server_cpu_seconds_in_{args.window:g}s": round(busy, 2)}
    finally:
        server.terminate()
        server.wait(timeout=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run")
    parser.add_argument("--nmt", action="append", required=True)
    parser.add_argument("--out", default=f"data/benchmarks/serve-left-{datetime.date.today()}")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--linger", type=float, default=0.5)
    parser.add_argument("--hold", type=float, default=0.5)
    parser.add_argument("--window", type=float, default=10.0)
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "command.txt").write_text("scripts/probe-serve-left.py " + " ".join(sys.argv[1:]) + "\n")
    (out / "machine.txt").write_text(machine_text(args.nmt))
    test = pathlib.Path(args.run) / "test.tsv"
    body = costly_body([line.split("\t")[0] for line in open(test, encoding="utf-8")])
    results = []
    for round_index in range(args.rounds):
        for index, nmt in enumerate(args.nmt):
            result = {"nmt": nmt, "round": round_index + 1,
                      **one_round(nmt, args.run, body, args, out / f"server-{index}.log")}
            print(json.dumps(result), flush=True)
            results.append(result)
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    window = f"server_cpu_seconds_in_{args.window:g}s"
    lines = [f"{args.clients} clients each sent 64 texts of about 2,500 characters (beam 16, "
             f"split off) and closed {args.linger:g} s later; {args.hold:g} s after that one "
             f"ordinary request was sent.", "",
             f"| nmt | round | ordinary request: status | seconds | server CPU seconds in the "
             f"{args.window:g} s after the clients left |", "| --- | ---: | ---: | ---: | ---: |"]
    lines += [f"| {r['nmt']} | {r['round']} | {r['status']} | {r['ordinary_seconds']} | "
              f"{r[window]} |" for r in results]
    (out / "results.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
