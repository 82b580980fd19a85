#!/usr/bin/env bash
# scripts/bench-ab.sh and scripts/bench-envs.sh with stand-ins for nmt whose throughput says which
# build or setting ran and when: the order of the runs in each round (no side always first), the
# tables they print (golden values) and their refusals. The stand-in's throughput is its base plus
# the number of benchmark runs so far, so a run out of its place shows in the table.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export CALLS=$scratch/calls

# make_stand_in PATH BASE: an executable that answers --version and, for `bench ...`, logs its
# name and SPEED to CALLS and prints the JSON of nmt bench translate with the throughput
# BASE * SPEED (SPEED 1 unless the environment sets it) plus the runs so far.
make_stand_in() {
  cat > "$1" <<SH
#!/usr/bin/env bash
if [[ \$1 == --version ]]; then echo "stand-in $(basename "$1")"; exit 0; fi
echo "$(basename "$1") \${SPEED:-1}" >> "\$CALLS"
runs=\$(wc -l < "\$CALLS")
echo "{\"sentences_per_s\": \$(( $2 * \${SPEED:-1} + runs ))}"
SH
  chmod +x "$1"
}
make_stand_in "$scratch/baseline" 100
make_stand_in "$scratch/candidate" 200

# bench-ab.sh: the baseline first in odd rounds, the candidate in even ones.
BENCH=translate BENCH_FLAGS="--model RUN" ROUNDS=3 "$source_dir/scripts/bench-ab.sh" \
  "$scratch/baseline" "$scratch/candidate" "$scratch/ab" > /dev/null 2>&1 \
  || fail "bench-ab.sh failed"
[[ $(cut -d' ' -f1 "$CALLS" | tr '\n' ' ') == "baseline candidate candidate baseline baseline candidate " ]] \
  || fail "bench-ab.sh ran in the order: $(tr '\n' ' ' < "$CALLS")"
for row in '| 1 | 101.0 | 202.0 |' '| 2 | 104.0 | 203.0 |' '| 3 | 105.0 | 206.0 |' \
  '| mean | 103.3 | 203.7 |' 'candidate / baseline: 1.971;' \
  'The baseline ran first in odd rounds, the candidate in even ones.'; do
  grep -qF -- "$row" "$scratch/ab/results.md" || fail "bench-ab.sh: '$row' missing from: $(cat "$scratch/ab/results.md")"
done

# bench-envs.sh: the settings' order rotated by one each round, so each runs first once in three.
rm "$CALLS"
BENCH=translate BENCH_FLAGS="--model RUN" ROUNDS=3 NMT=$scratch/baseline \
  "$source_dir/scripts/bench-envs.sh" "$scratch/envs" "one=SPEED=1" "two=SPEED=2" \
  "three=SPEED=3 --precision fp32" > /dev/null 2>&1 || fail "bench-envs.sh failed"
[[ $(cut -d' ' -f2 "$CALLS" | tr '\n' ' ') == "1 2 3 2 3 1 3 1 2 " ]] \
  || fail "bench-envs.sh ran the settings in the order: $(cut -d' ' -f2 "$CALLS" | tr '\n' ' ')"
for row in '| one | 101.0 | 106.0 | 108.0 | 106.0 | 1.000 |' \
  '| two | 202.0 | 204.0 | 209.0 | 204.0 | 1.925 |' \
  '| three | 303.0 | 305.0 | 307.0 | 305.0 | 2.877 |' \
  'Round 1 ran the settings in the order above; each later round starts one setting further.'; do
  grep -qF -- "$row" "$scratch/envs/results.md" || fail "bench-envs.sh: '$row' missing from: $(cat "$scratch/envs/results.md")"
done

# Refusals name what is wrong and exit 2.
expect_exit_2() {
  local name=$1 expected=$2 output status
  shift 2
  set +e
  output=$("$@" 2>&1)
  status=$?
  set -e
  [[ $status -eq 2 && $output == *"$expected"* ]] || fail "$name: exit $status, $output"
}
expect_exit_2 "one setting" "two settings at least" \
  "$source_dir/scripts/bench-envs.sh" "$scratch/none" "one=SPEED=1"
expect_exit_2 "a setting without a name" "'SPEED' is not name=ASSIGNMENTS" \
  "$source_dir/scripts/bench-envs.sh" "$scratch/none" "SPEED" "two=SPEED=2"
expect_exit_2 "an unknown benchmark" "BENCH is train or translate, not 'serve'" \
  env BENCH=serve "$source_dir/scripts/bench-ab.sh" "$scratch/baseline" "$scratch/candidate" "$scratch/none"
expect_exit_2 "a missing build" "$scratch/missing is not an executable" \
  env BENCH=translate "$source_dir/scripts/bench-ab.sh" "$scratch/missing" "$scratch/candidate" "$scratch/none"
[[ ! -e $scratch/none ]] || fail "a refused run wrote its record directory"
echo "bench-ab.sh and bench-envs.sh: order, tables and refusals as expected"
