#!/usr/bin/env python3
"""Hostile clients against `nmt serve`, and how normal clients fare meanwhile.

Starts `nmt serve --model RUN --port 0` and measures normal clients (CLIENTS threads, each sending
one sentence per POST /v1/translate and waiting for its answer; one prober sending GET /health on
a new connection every 100 ms) for SECONDS, first alone, then while IDLE connections say nothing
and SLOW connections send their request head one byte a second. Hostile connections the server
closes are opened again at once, as an attacker would. Reports p50/p99/max latency and failures
of both kinds of normal request in both phases, and the server's peak resident memory (VmHWM).

    scripts/abuse-serve.py RUN [--out DIR] [--nmt build/src/nmt] [--idle 1000] [--slow 100]
        [--clients 4] [--seconds 30] [--sentences FILE] [--serve-flag=--precision=int8 ...]

Writes DIR (default data/benchmarks/serve-abuse-<date>/): command.txt, machine.txt,
server.log, results.json and results.md. Python's standard library only.
"""
import argparse
import datetime
import http.client
import json
import os
import pathlib
import resource
import select
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_process import machine_text, start_server  # noqa: E402

SLOW_HEAD = b"POST /v1/translate HTTP/1.1\r\nHost: abuse\r\nContent-Type: application/json\r\n"


def percentile(values, fraction):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def summary(latencies, failures):
    ms = [1000 * v for v in latencies]
    return {
        "answered": len(ms),
        "failed": failures,
        "p50_ms": round(percentile(ms, 0.50), 1) if ms else None,
        "p99_ms": round(percentile(ms, 0.99), 1) if ms else None,
        "max_ms": round(max(ms), 1) if ms else None,
    }


class NormalClients:
    """CLIENTS translating threads and one /health prober, recording latencies."""

    def __init__(self, port, sentences, clients):
        self.port = port
        self.sentences = sentences
        self.clients = clients
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.translate = ([], 0)
        self.health = ([], 0)

    def record(self, kind, seconds):
        with self.lock:
            latencies, failures = getattr(self, kind)
            if seconds is None:
                setattr(self, kind, (latencies, failures + 1))
            else:
                latencies.append(seconds)

    def translator(self, index):
        connection = None
        i = index
        while not self.stop.is_set():
            body = json.dumps({"q": self.sentences[i % len(self.sentences)]})
            i += self.clients
            start = time.monotonic()
            try:
                if connection is None:
                    connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
                connection.request("POST", "/v1/translate", body,
                                   {"Content-Type": "application/json"})
                answer = connection.getresponse()
                answer.read()
                self.record("translate", time.monotonic() - start if answer.status == 200 else None)
            except (OSError, http.client.HTTPException):
                self.record("translate", None)
                connection = None

    def prober(self):
        while not self.stop.is_set():
            start = time.monotonic()
            try:
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
                connection.request("GET", "/health")
                answer = connection.getresponse()
                answer.read()
                connection.close()
                self.record("health", time.monotonic() - start if answer.status == 200 else None)
            except (OSError, http.client.HTTPException):
                self.record("health", None)
            self.stop.wait(0.1)

    def run(self, seconds):
        threads = [threading.Thread(target=self.translator, args=(i,)) for i in range(self.clients)]
        threads.append(threading.Thread(target=self.prober))
        for thread in threads:
            thread.start()
        time.sleep(seconds)
        self.stop.set()
        for thread in threads:
            thread.join()
        return {"translate": summary(*self.translate), "health": summary(*self.health)}


class Attackers:
    """IDLE silent connections and SLOW ones trickling a head, reopened when the server closes
    them."""

    def __init__(self, port, idle, slow):
        self.port = port
        self.idle = [None] * idle
        self.slow = [None] * slow
        self.slow_sent = [0] * slow
        self.reopened = 0
        self.refused = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run)

    def connect(self):
        try:
            return socket.create_connection(("127.0.0.1", self.port), timeout=5)
        except OSError:
            self.refused += 1
            return None

    def keep_open(self, pool, sent=None):
        poller = select.poll()  # select() cannot watch descriptors over 1023
        for sock in pool:
            if sock is not None:
                poller.register(sock, select.POLLIN)
        ready = {fd for fd, _ in poller.poll(0)}
        for i, sock in enumerate(pool):
            closed = sock is None
            if sock is not None and sock.fileno() in ready:
                try:
                    closed = sock.recv(65536) == b""
                except OSError:
                    closed = True
                if closed:
                    sock.close()
            if closed:
                pool[i] = self.connect()
                self.reopened += sock is not None
                if sent is not None:
                    sent[i] = 0

    def trickle(self):
        for i, sock in enumerate(self.slow):
            if sock is None:
                continue
            try:
                sock.send(SLOW_HEAD[self.slow_sent[i] % len(SLOW_HEAD):][:1])
                self.slow_sent[i] += 1
            except OSError:
                sock.close()
                self.slow[i] = None

    def run(self):
        next_byte = time.monotonic()
        while not self.stop.is_set():
            self.keep_open(self.idle)
            self.keep_open(self.slow, self.slow_sent)
            if time.monotonic() >= next_byte:
                self.trickle()
                next_byte += 1.0
            self.stop.wait(0.2)
        for sock in self.idle + self.slow:
            if sock is not None:
                sock.close()

    def open_count(self):
        return sum(s is not None for s in self.idle + self.slow)


def peak_memory_mib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


def markdown(results, args):
    lines = [f"Normal clients: {args.clients} translating (one sentence per request) and one "
             f"/health prober (a new connection every 100 ms), {args.seconds} s per phase; "
             f"hostile: {args.idle} idle and {args.slow} slow connections (a head byte a second).",
             "", "| phase | request | answered | failed | p50 ms | p99 ms | max ms |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for phase in ("alone", "under attack"):
        for kind in ("translate", "health"):
            r = results[phase][kind]
            lines.append(f"| {phase} | {kind} | {r['answered']} | {r['failed']} | {r['p50_ms']} "
                         f"| {r['p99_ms']} | {r['max_ms']} |")
    attack = results["attack"]
    lines += ["", f"Hostile connections open at the end: {attack['open_at_end']} of "
              f"{args.idle + args.slow}; reopened after the server closed them: "
              f"{attack['reopened']}; connections refused: {attack['refused']}.",
              f"Server peak resident memory (VmHWM): {results['peak_memory_mib']} MiB."]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run")
    parser.add_argument("--out", default=f"data/benchmarks/serve-abuse-{datetime.date.today()}")
    parser.add_argument("--nmt", default="build/src/nmt")
    parser.add_argument("--idle", type=int, default=1000)
    parser.add_argument("--slow", type=int, default=100)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--sentences", help="one sentence per line (default: the sources of the "
                        "run's test split, test.tsv)")
    parser.add_argument("--serve-flag", action="append", default=[],
                        help="a flag of nmt serve, e.g. --serve-flag=--precision=int8")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "command.txt").write_text("scripts/abuse-serve.py " + " ".join(sys.argv[1:]) + "\n")
    (out / "machine.txt").write_text(machine_text([args.nmt]))
    source = pathlib.Path(args.sentences or pathlib.Path(args.run) / "test.tsv")
    if not source.is_file():
        sys.exit(f"abuse-serve: {source} not found; name a file of sentences with --sentences")
    sentences = [line.rstrip("\n").split("\t")[0] for line in open(source)][:2000]
    server, port = start_server(args.nmt, args.run, args.serve_flag, out / "server.log",
                                 "abuse-serve")
    try:
        results = {"alone": NormalClients(port, sentences, args.clients).run(args.seconds)}
        print("alone:", json.dumps(results["alone"]), flush=True)
        attackers = Attackers(port, args.idle, args.slow)
        attackers.thread.start()
        time.sleep(5)  # the hostile connections open
        results["under attack"] = NormalClients(port, sentences, args.clients).run(args.seconds)
        results["attack"] = {"open_at_end": attackers.open_count(),
                             "reopened": attackers.reopened, "refused": attackers.refused}
        attackers.stop.set()
        attackers.thread.join()
        print("under attack:", json.dumps(results["under attack"]), flush=True)
        results["peak_memory_mib"] = peak_memory_mib(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=60)
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    (out / "results.md").write_text(markdown(results, args))
    print(markdown(results, args), end="")
    print(f"abuse-serve: records in {out}")


if __name__ == "__main__":
    main()
