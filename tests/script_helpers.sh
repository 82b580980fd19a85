# Helpers of the test scripts that drive the nmt binary beside a peer library; sourced, not run.
# Each expects the sourcing script to define fail MESSAGE (print it, exit 1).

# expect_refusal NAME EXPECTED OUT COMMAND...: COMMAND exits 2 with EXPECTED in its output and
# leaves neither OUT nor what a command writes before renaming into OUT (OUT.tmp, OUT.staging).
expect_refusal() {
  local name=$1 expected=$2 out=$3 output status
  shift 3
  set +e
  output=$("$@" 2>&1 < /dev/null)
  status=$?
  set -e
  [[ $status -eq 2 && $output == *"$expected"* ]] || fail "$name: exit $status, $output"
  [[ ! -e $out && ! -e $out.tmp && ! -e $out.staging ]] || fail "$name: $out was written"
}

# nmt_serve_port LOG PID: waits (up to 60 s) until the `nmt serve --port 0` with process PID,
# logging to LOG, answers /health; prints the port it chose.
nmt_serve_port() {
  local log=$1 pid=$2 port=""
  for _ in $(seq 120); do
    port=$(sed -n 's|.*listening on http://[^:]*:\([0-9]*\)/.*|\1|p' "$log" | head -1)
    if [[ -n $port ]] && curl -sf "http://127.0.0.1:$port/health" > /dev/null; then
      echo "$port"
      return 0
    fi
    kill -0 "$pid" 2> /dev/null || { cat "$log" >&2; fail "nmt serve died"; }
    sleep 0.5
  done
  fail "nmt serve did not answer /health within 60 s"
}
