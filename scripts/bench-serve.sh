#!/usr/bin/env bash
# Load test of `nmt serve` on loopback with wrk: sentences/s and p50/p99 latency at 1, 8 and 32
# concurrent clients, with dynamic batching (serve.max_batch, serve.max_wait_ms of the run or of
# SERVE_FLAGS) against --max-batch 1 (every sentence decoded alone). Each client sends one sentence
# per request (POST /v1/translate) and waits for its answer before the next. Bounded: each point
# runs DURATION seconds after WARMUP seconds.
#
#   scripts/bench-serve.sh RUN [OUT_DIR]
#
# Environment: DURATION (seconds per point, 30), WARMUP (seconds, 5), CLIENTS ("1 8 32"),
# PRECISION (decode.precision, int8), STRATEGY (the run's decode.strategy when empty), THREADS
# (CPU threads of the server, 0 = all cores), SENTENCES (one sentence per line; default: the
# sources of the run's test split), SERVE_FLAGS (more nmt serve flags), NMT (build/src/nmt),
# BATCHING ("dynamic single": which of the two to measure).
# Writes OUT_DIR (default data/benchmarks/serve-<date>/): command.txt, machine.txt, raw/ (wrk's
# output, the server's logs, /metrics after each point), results.tsv and results.md. Measure on an
# otherwise idle machine: wrk and the server share its cores.
set -euo pipefail
cd "$(dirname "$0")/.."
run=${1:?usage: scripts/bench-serve.sh RUN [OUT_DIR]}
out=${2:-data/benchmarks/serve-$(date -u +%Y-%m-%d)}
duration=${DURATION:-30}
warmup=${WARMUP:-5}
clients=${CLIENTS:-1 8 32}
precision=${PRECISION:-int8}
strategy=${STRATEGY:-}
threads=${THREADS:-0}
nmt=${NMT:-build/src/nmt}
batchings=${BATCHING:-dynamic single}
for tool in wrk curl python3; do
  command -v "$tool" > /dev/null || { echo "bench-serve: $tool not found (scripts/install-deps.sh)" >&2; exit 1; }
done
[[ -x "$nmt" ]] || { echo "bench-serve: $nmt not found; build first" >&2; exit 1; }
[[ -f "$run/config.json" ]] || { echo "bench-serve: $run is not a run directory" >&2; exit 1; }
mkdir -p "$out/raw"
sentences=${SENTENCES:-$out/raw/sentences.txt}
if [[ -z "${SENTENCES:-}" ]]; then
  head -n 2000 "$run/test.tsv" | cut -f1 > "$sentences"
fi
export BENCH_SENTENCES=$sentences

echo "scripts/bench-serve.sh $*  (DURATION=$duration WARMUP=$warmup CLIENTS=\"$clients\"" \
  "PRECISION=$precision STRATEGY=$strategy THREADS=$threads SERVE_FLAGS=\"${SERVE_FLAGS:-}\"" \
  "NMT=$nmt BATCHING=\"$batchings\")" \
  > "$out/command.txt"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "host: $(uname -srm)"
  echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  echo "isa flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx|amx|fma|sse4)' | tr '\n' ' ')"
  echo "nmt: $nmt ($("$nmt" --version | grep -i 'cpu tier' || true))"
  echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "wrk: $(wrk --version 2>&1 | head -1)"
  echo "sentences: $(wc -l < "$sentences") from $sentences"
} > "$out/machine.txt"

server_pid=""
stop_server() {
  if [[ -n "$server_pid" ]]; then
    kill -TERM "$server_pid" 2> /dev/null || true
    wait "$server_pid" 2> /dev/null || true
    server_pid=""
  fi
}
trap stop_server EXIT

# start_server NAME FLAGS...: starts nmt serve on a free port and sets $port once it is ready.
start_server() {
  local name=$1
  shift
  local log=$out/raw/server-$name.log
  local flags=(--precision "$precision" --threads "$threads")
  [[ -n "$strategy" ]] && flags+=(--strategy "$strategy")
  # shellcheck disable=SC2086
  "$nmt" serve --model "$run" --port 0 "${flags[@]}" ${SERVE_FLAGS:-} "$@" > "$log" 2>&1 &
  server_pid=$!
  port=""
  for _ in $(seq 600); do
    port=$(sed -n 's|.*listening on http://[^:]*:\([0-9]*\)/.*|\1|p' "$log" | head -1)
    if [[ -n "$port" ]] && curl -sf "http://127.0.0.1:$port/health" > /dev/null; then return; fi
    kill -0 "$server_pid" 2> /dev/null || { cat "$log" >&2; echo "bench-serve: the server died" >&2; exit 1; }
    sleep 0.1
  done
  echo "bench-serve: the server was not ready after 60 s" >&2
  exit 1
}

# batch_totals: "sum count" of nmt_batch_sentences from /metrics.
batch_totals() {
  curl -sf "http://127.0.0.1:$port/metrics" |
    awk '/^nmt_batch_sentences_sum/ {s = $2} /^nmt_batch_sentences_count/ {c = $2} END {print s + 0, c + 0}'
}

printf 'batching\tclients\tsentences_per_s\tp50_ms\tp99_ms\tmean_batch\trequests\tstatus_errors\tsocket_errors\n' \
  > "$out/results.tsv"
for batching in $batchings; do
  if [[ $batching == dynamic ]]; then start_server dynamic; else start_server single --max-batch 1; fi
  for c in $clients; do
    wrk_threads=$((c < 2 ? c : 2))
    timeout $((warmup + 60)) wrk -t "$wrk_threads" -c "$c" -d "${warmup}s" --timeout 30s \
      -s scripts/bench-serve.lua "http://127.0.0.1:$port" > /dev/null
    read -r sum_before count_before < <(batch_totals)
    raw=$out/raw/wrk-$batching-c$c.txt
    timeout $((duration + 60)) wrk -t "$wrk_threads" -c "$c" -d "${duration}s" --timeout 30s \
      --latency -s scripts/bench-serve.lua "http://127.0.0.1:$port" > "$raw"
    read -r sum_after count_after < <(batch_totals)
    curl -sf "http://127.0.0.1:$port/metrics" > "$out/raw/metrics-$batching-c$c.txt"
    python3 - "$raw" "$batching" "$c" "$sum_before" "$count_before" "$sum_after" "$count_after" \
      >> "$out/results.tsv" <<'PY'
import re, sys
raw, batching, clients = sys.argv[1:4]
sum_before, count_before, sum_after, count_after = map(float, sys.argv[4:8])
line = next(l for l in open(raw) if l.startswith("RESULT "))
f = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line)}
ok = f["requests"] - f["status_errors"]
batches = count_after - count_before
mean_batch = (sum_after - sum_before) / batches if batches else 0.0
print("\t".join([batching, clients, f"{ok / (f['duration_us'] / 1e6):.1f}",
                 f"{f['p50_us'] / 1e3:.1f}", f"{f['p99_us'] / 1e3:.1f}", f"{mean_batch:.2f}",
                 str(f["requests"]), str(f["status_errors"]), str(f["socket_errors"])]))
PY
    tail -1 "$out/results.tsv"
  done
  stop_server
done

python3 - "$out/results.tsv" > "$out/results.md" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print("| batching | clients | sentences/s | p50 ms | p99 ms | mean batch | requests | errors |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for r in rows:
    name = "dynamic" if r["batching"] == "dynamic" else "max_batch 1"
    errors = int(r["status_errors"]) + int(r["socket_errors"])
    print(f"| {name} | {r['clients']} | {r['sentences_per_s']} | {r['p50_ms']} | {r['p99_ms']} "
          f"| {r['mean_batch']} | {r['requests']} | {errors} |")
rate = {(r["batching"], r["clients"]): float(r["sentences_per_s"]) for r in rows}
for clients in sorted({r["clients"] for r in rows}, key=int):
    single = rate.get(("single", clients))
    if single:
        plural = "" if clients == "1" else "s"
        print(f"\nAt {clients} client{plural} dynamic batching gives "
              f"{rate[('dynamic', clients)] / single:.2f}x the sentences/s of max_batch 1.", end="")
print()
PY
cat "$out/results.md"
echo "bench-serve: records in $out"
