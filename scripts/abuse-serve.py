#!/usr/bin/env python3
"""Hostile clients against `nmt serve`, and how normal clients fare meanwhile.

Starts `nmt serve --model RUN --port 0` and measures normal clients (CLIENTS threads, each sending
one sentence per POST /v1/translate and waiting for its answer; one prober sending GET /health on
a new connection every 100 ms) for SECONDS, first alone, then while IDLE connections say nothing
and SLOW connections send their request head one byte a second. Hostile connections the server
closes are opened again at once, as an attacker would. Reports p50/p99/max latency and failures
of both kinds of normal request in both phases, and the server's peak resident memory (VmHWM).

Then the costly cases, one after another, each with the server's peak memory reset before it
(/proc/PID/clear_refs) and read after it, and one client translating a sentence at a time
meanwhile:
- chunk extension flood: FLOODERS connections send a chunked request whose chunk header's
  extension never ends, as fast as the server reads, for CASE_SECONDS (reopened when closed);
- trailer flood: the same with a trailer field that never ends;
- oversized body: one request of 20 MB, over serve.max_body_bytes, sent whole;
- long texts: one LibreTranslate /translate of 64 texts of 4,900 characters, one sentence each;
- costly clients that leave: LEAVERS clients each send 64 texts of about 2,500 characters under
  beam 16 and close half a second later; half a second after that an ordinary request is timed.

    scripts/abuse-serve.py RUN [--out DIR] [--nmt build/src/nmt] [--idle 1000] [--slow 100]
        [--clients 4] [--seconds 30] [--sentences FILE] [--serve-flag=--precision=int8 ...]
        [--case-seconds 10] [--flooders 20] [--leavers 20]

Writes DIR (default data/benchmarks/serve-abuse-<date>/): command.txt, machine.txt,
server.log, results.json and results.md. Python's standard library only.
"""
import argparse
import collections
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
from serve_process import (costly_body, long_libre_body, machine_text, send_and_leave,  # noqa: E402
                           start_server)

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


def reset_peak_memory(pid):
    """VmHWM starts again from the current resident memory (Linux: clear_refs 5)."""
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")


CHUNKED_HEAD = (b"POST /v1/translate HTTP/1.1\r\nHost: abuse\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n")
FILLER = b"b" * 65536


def answer_status(sock):
    """The status code of what the server sent on sock ("none" when it closed without one)."""
    try:
        head = sock.recv(4096)
    except OSError:
        return "reset"
    parts = head.split(b" ", 2)
    return parts[1].decode() if len(parts) > 1 and head.startswith(b"HTTP/") else "none"


def flood(port, prefix, seconds, connections):
    """CONNECTIONS connections each send prefix and then filler as fast as the server reads it,
    until the server answers or closes (then a new one) or the time is up. Returns how often each
    status came back and the mebibytes sent."""
    statuses, sent, lock = collections.Counter(), [0], threading.Lock()
    end = time.monotonic() + seconds

    def one():
        while time.monotonic() < end:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            except OSError:
                with lock:
                    statuses["refused"] += 1
                continue
            poller = select.poll()
            poller.register(sock, select.POLLIN)
            status = "open at the end"
            try:
                sock.sendall(prefix)
                while time.monotonic() < end:
                    if poller.poll(0):
                        status = answer_status(sock)
                        break
                    sock.sendall(FILLER)
                    with lock:
                        sent[0] += len(FILLER)
            except OSError:
                status = answer_status(sock)
            sock.close()
            with lock:
                statuses[status] += 1

    threads = [threading.Thread(target=one) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"statuses": dict(statuses), "mib_sent": round(sent[0] / 2**20, 1)}


def post(port, path, body, timeout=300):
    """(status, seconds) of one POST with a JSON body."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    start = time.monotonic()
    try:
        connection.request("POST", path, body, {"Content-Type": "application/json"})
        answer = connection.getresponse()
        answer.read()
        status = answer.status
    except (OSError, http.client.HTTPException) as error:
        status = type(error).__name__
    return status, round(time.monotonic() - start, 3)


def oversized_body(port, _args, _sentences):
    status, seconds = post(port, "/v1/translate", b'{"q": "' + b"a" * 20_000_000 + b'"}')
    return {"status": status, "seconds": seconds}


def long_texts(port, _args, _sentences):
    status, seconds = post(port, "/translate", long_libre_body())
    return {"status": status, "seconds": seconds}


def leaving_clients(port, args, sentences):
    body = costly_body(sentences)
    threads = [threading.Thread(target=send_and_leave, args=(port, body, 0.5))
               for _ in range(args.leavers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    time.sleep(0.5)
    status, seconds = post(port, "/v1/translate", json.dumps({"q": "I am hungry."}))
    return {"clients": args.leavers, "ordinary_status": status, "ordinary_seconds": seconds}


CASES = {
    "chunk extension flood":
        lambda port, args, _: flood(port, CHUNKED_HEAD + b"5;a=", args.case_seconds, args.flooders),
    "trailer flood":
        lambda port, args, _: flood(port, CHUNKED_HEAD + b"0\r\nX-Trailer: ", args.case_seconds,
                                    args.flooders),
    "oversized body": oversized_body,
    "long texts": long_texts,
    "costly clients that leave": leaving_clients,
}


def run_case(case, server, port, args, sentences):
    """The case with one client translating meanwhile, and the server's peak memory over it."""
    reset_peak_memory(server.pid)
    before = peak_memory_mib(server.pid)
    normal = NormalClients(port, ["I am hungry."], 1)
    threads = [threading.Thread(target=normal.translator, args=(0,))]
    threads[0].start()
    result = CASES[case](port, args, sentences)
    normal.stop.set()
    threads[0].join()
    if server.poll() is not None:
        sys.exit(f"abuse-serve: the server exited during the case {case!r}")
    return {**result, "ordinary_meanwhile": summary(*normal.translate),
            "memory_before_mib": before, "peak_memory_mib": peak_memory_mib(server.pid)}


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
    if results.get("cases"):
        lines += ["", f"Costly cases (floods: {args.flooders} connections for {args.case_seconds:g} s; "
                  f"{args.leavers} clients that leave), one client translating a sentence at a time "
                  "meanwhile:", "",
                  "| case | what happened | ordinary requests meanwhile: answered / failed / max ms "
                  "| resident MiB before | peak MiB |", "| --- | --- | --- | ---: | ---: |"]
        for case, r in results["cases"].items():
            happened = {k: v for k, v in r.items() if k not in
                        ("ordinary_meanwhile", "memory_before_mib", "peak_memory_mib")}
            o = r["ordinary_meanwhile"]
            lines.append(f"| {case} | {json.dumps(happened)} | {o['answered']} / {o['failed']} / "
                         f"{o['max_ms']} | {r['memory_before_mib']} | {r['peak_memory_mib']} |")
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
    parser.add_argument("--case-seconds", type=float, default=10, help="how long each flood lasts")
    parser.add_argument("--flooders", type=int, default=20, help="connections of each flood")
    parser.add_argument("--leavers", type=int, default=20,
                        help="clients that send a costly request and leave")
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
        results["cases"] = {}
        for case in CASES:
            results["cases"][case] = run_case(case, server, port, args, sentences)
            print(f"{case}:", json.dumps(results["cases"][case]), flush=True)
    finally:
        server.terminate()
        server.wait(timeout=60)
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    (out / "results.md").write_text(markdown(results, args))
    print(markdown(results, args), end="")
    print(f"abuse-serve: records in {out}")


if __name__ == "__main__":
    main()
