#!/usr/bin/env bash
# One costly request to `nmt serve`, two builds alternating (issue 66): LibreTranslate's
# /translate with 64 texts of about 4,900 characters each and no sentence end inside, so that each
# is one sentence of about a thousand tokens. Per round and build: a fresh server on the run, the
# request's status and seconds, and the server's peak resident memory (VmHWM) before and after it.
#
#   scripts/bench-serve-long.sh NMT_A NMT_B RUN [OUT_DIR] [ROUNDS]
#
# Writes OUT_DIR (default data/benchmarks/serve-long-<UTC date>/): command.txt, machine.txt (date,
# CPU model and ISA flags, commit), results.tsv and results.md. Meaningful only on an otherwise idle
# machine.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -lt 3 ]]; then
  echo "usage: scripts/bench-serve-long.sh NMT_A NMT_B RUN [OUT_DIR] [ROUNDS]" >&2
  exit 2
fi
a=$1 b=$2 run=$3
out=${4:-data/benchmarks/serve-long-$(date -u +%Y-%m-%d)}
rounds=${5:-3}
mkdir -p "$out"
echo "scripts/bench-serve-long.sh $*" > "$out/command.txt"
{
  scripts/machine-header.sh
  echo "A: $a"; echo "B: $b"
  "$b" --version | sed 's/^/    /'
} > "$out/machine.txt"
python3 - "$a" "$b" "$run" "$out" "$rounds" <<'PY'
import json, os, signal, socket, subprocess, sys, time, urllib.request
sys.path.insert(0, "scripts")
from serve_process import long_libre_body
a, b, run, out, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
body = long_libre_body()

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

def hwm(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")

rows = []
for round_ in range(1, rounds + 1):
    for label, binary in (("A", a), ("B", b)):
        port = free_port()
        server = subprocess.Popen([binary, "serve", "-m", run, "--port", str(port)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).read()
                break
            except Exception:
                time.sleep(0.1)
        before = hwm(server.pid)
        request = urllib.request.Request(f"http://127.0.0.1:{port}/translate", data=body,
                                         headers={"Content-Type": "application/json"})
        start = time.time()
        try:
            with urllib.request.urlopen(request, timeout=600) as answer:
                status = answer.status
                answer.read()
        except urllib.error.HTTPError as error:
            status = error.code
        seconds = time.time() - start
        after = hwm(server.pid)
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
        rows.append((round_, label, status, seconds, before, after))
        print(f"round {round_} {label}: {status} in {seconds:.2f} s, peak RSS {before:.0f} -> {after:.0f} MiB", flush=True)
with open(f"{out}/results.tsv", "w") as f:
    f.write("round\tbuild\tstatus\tseconds\tpeak_rss_before_mib\tpeak_rss_after_mib\n")
    for row in rows:
        f.write("%d\t%s\t%d\t%.3f\t%.1f\t%.1f\n" % row)
def median(values):
    values = sorted(values)
    return values[len(values) // 2]
with open(f"{out}/results.md", "w") as f:
    f.write("| build | status | seconds (median) | peak RSS after, MiB (median) |\n| --- | --- | ---: | ---: |\n")
    for label in ("A", "B"):
        mine = [r for r in rows if r[1] == label]
        f.write(f"| {label} | {mine[0][2]} | {median([r[3] for r in mine]):.2f} | {median([r[5] for r in mine]):.0f} |\n")
print(open(f"{out}/results.md").read(), end="")
PY
