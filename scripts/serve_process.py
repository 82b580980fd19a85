"""What scripts/abuse-serve.py and scripts/probe-serve-left.py share: the machine a record was
made on, an `nmt serve` process started on a free port and waited for until its model is ready,
and the costly request that clients send and leave. Python's standard library only."""
import datetime
import http.client
import itertools
import json
import os
import random
import re
import resource
import socket
import subprocess
import sys
import time


def machine_text(binaries):
    """Date, commit, CPU model and ISA flags, open-file limit, and each binary's --version."""
    flags, model = "", ""
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name") and not model:
            model = line.split(":", 1)[1].strip()
        if line.startswith("flags") and not flags:
            names = line.split(":", 1)[1].split()
            flags = " ".join(f for f in names if re.match(r"(avx|amx|fma|sse4)", f))
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    text = (f"date: {datetime.datetime.utcnow():%Y-%m-%dT%H:%M:%SZ}\n"
            f"commit: {commit.strip() or 'unknown'}\n"
            f"host: {' '.join(os.uname()[i] for i in (0, 2, 4))}\n"
            f"cpu: {os.cpu_count()} cores, {model}\nisa flags: {flags}\n"
            f"open files limit: {resource.getrlimit(resource.RLIMIT_NOFILE)}\n")
    for nmt in binaries:
        version = subprocess.run([nmt, "--version"], capture_output=True, text=True).stdout
        text += f"nmt: {nmt}\n{version}"
    return text


def start_server(nmt, run, flags, log_path, tool):
    """`nmt serve --model RUN --port 0 FLAGS`, logging to log_path; (process, port) once /health
    answers 200. Exits naming `tool` when the server exits or is not ready after 120 s."""
    log = open(log_path, "w")
    server = subprocess.Popen([nmt, "serve", "--model", run, "--port", "0", *flags],
                              stdout=log, stderr=subprocess.STDOUT)
    for _ in range(1200):
        found = re.search(r"listening on http://[^:]*:(\d+)/", open(log_path).read())
        if found:
            port = int(found.group(1))
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                connection.request("GET", "/health")
                if connection.getresponse().status == 200:
                    return server, port
            except (OSError, http.client.HTTPException):
                pass
        if server.poll() is not None:
            sys.exit(f"{tool}: the server exited; see {log_path}")
        time.sleep(0.1)
    server.kill()
    sys.exit(f"{tool}: the server was not ready after 120 s")


def costly_body(sentences, texts=64, characters=2500, beam_size=16):
    """A /v1/translate body of `texts` texts of about `characters` characters each (sentences
    joined), each one sentence ("split": false), under beam search of beam_size."""
    joined, text = [], ""
    for sentence in itertools.cycle(sentences):
        text += (" " if text else "") + sentence
        if len(text) >= characters:
            joined.append(text)
            text = ""
            if len(joined) == texts:
                break
    return json.dumps({"q": joined, "split": False, "strategy": "beam",
                       "beam_size": beam_size}).encode()


def long_libre_body():
    """LibreTranslate's /translate body of issue 66's costly request: 64 texts of about 4,900
    characters each, seeded words with no sentence end inside, so that each is one sentence of
    about a thousand tokens."""
    words = "the house of my friend is near the old station and we walk there every day".split()
    rng = random.Random(23)
    texts = [" ".join(rng.choice(words) for _ in range(1000))[:4900] for _ in range(64)]
    return json.dumps({"q": texts, "source": "en", "target": "es"}).encode()


def send_and_leave(port, body, linger):
    """Sends body to POST /v1/translate and closes the connection linger seconds later."""
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall(b"POST /v1/translate HTTP/1.1\r\nHost: probe\r\n"
                       b"Content-Type: application/json\r\nContent-Length: "
                       + str(len(body)).encode() + b"\r\n\r\n" + body)
    time.sleep(linger)
    connection.close()
