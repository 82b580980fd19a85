#!/usr/bin/env bash
# nmt's fp32 training throughput against one peer's, alternating, as a ratio in a record must be
# measured: ROUNDS runs of bench-train.sh's throughput comparison (--skip-quality), the two tools'
# order swapped from one round to the next (nmt first in odd rounds, the peer first in even ones),
# then a table of each round's real target tokens/s, the ratio nmt / peer in each round and the
# medians. nmt's figure is its fp32 row; the peers train in fp32 only.
#
#   scripts/peers/bench-train-rounds.sh --out DIR [--rounds 3] [--peer onmt] [-- BENCH_TRAIN_OPTIONS]
#   scripts/peers/bench-train-rounds.sh --out data/benchmarks/peers-train-rounds-2026-11-28-avx2 \
#       -- --tier avx2 --steps 40 --warmup 10                         # ~18 minutes here
#
# Options: --out DIR (required): the record; each round's bench-train.sh record goes to
# DIR/round-N/, the table to DIR/rounds.md and DIR/rounds.json. --rounds N [3]. --peer onmt|joey
# [onmt]. --work DIR: bench-train.sh's scratch, shared by the rounds [runs/peers-rounds]. Everything
# after -- goes to every bench-train.sh run (not --tools, --out, --work or --skip-*, which this
# script sets). Exit status: 0 when the table was written, 1 when a round gave no figure, 2 usage.
set -euo pipefail
cd "$(dirname "$0")/../.."
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
out=""
rounds=3
peer=onmt
work=runs/peers-rounds
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --peer) peer=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) echo "bench-train-rounds: unknown option $1 (bench-train.sh's options go after --)" >&2
       exit 2 ;;
  esac
done
[[ -n $out ]] || { echo "bench-train-rounds: --out DIR is required" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench-train-rounds: --rounds: not a whole number ≥ 1: $rounds" >&2; exit 2; }
[[ $peer =~ ^(onmt|joey)$ ]] || { echo "bench-train-rounds: --peer: expected onmt or joey, got '$peer'" >&2; exit 2; }
for option in "$@"; do
  case $option in
    --tools|--out|--work|--skip-throughput|--skip-quality)
      echo "bench-train-rounds: $option is set by this script" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
echo "scripts/peers/bench-train-rounds.sh --out $out --rounds $rounds --peer $peer --work $work -- $*" \
  > "$out/command.txt"
for (( round = 1; round <= rounds; round++ )); do
  if (( round % 2 == 1 )); then order=nmt,$peer; else order=$peer,nmt; fi
  echo "== bench-train-rounds $(date -u +%T): round $round of $rounds, $order"
  scripts/peers/bench-train.sh --tools "$order" --skip-quality --out "$out/round-$round" \
    --work "$work" "$@"
done
python3 - "$out" "$rounds" "$peer" <<'EOF'
import json, statistics, sys
out, rounds, peer = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def figure(round_, name):
    with open(f"{out}/round-{round_}/results/throughput-{name}.json") as f:
        result = json.load(f)
    if "tgt_tokens_per_s" not in result:
        sys.exit(f"bench-train-rounds: round {round_}: {name} gave no figure: {result.get('error')}")
    return result["tgt_tokens_per_s"], result["tool"]
rows = []
for r in range(1, rounds + 1):
    nmt, _ = figure(r, "nmt-fp32")
    other, label = figure(r, peer)
    rows.append({"round": r, "first": "nmt" if r % 2 else label, "nmt_fp32": nmt, peer: other,
                 "ratio": round(nmt / other, 3)})
summary = {"peer": label, "rounds": rows,
           "median_nmt_fp32": statistics.median(row["nmt_fp32"] for row in rows),
           f"median_{peer}": statistics.median(row[peer] for row in rows),
           "median_ratio": round(statistics.median(row["ratio"] for row in rows), 3)}
with open(f"{out}/rounds.json", "w") as f:
    json.dump(summary, f, indent=1)
lines = [f"| round | first | nmt fp32, real target tokens/s | {label} fp32 | nmt / {label} |",
         "| ---: | --- | ---: | ---: | ---: |"]
lines += [f"| {row['round']} | {row['first']} | {row['nmt_fp32']:,.1f} | {row[peer]:,.1f} | "
          f"{row['ratio']:.3f}× |" for row in rows]
lines.append(f"| median | | {summary['median_nmt_fp32']:,.1f} | {summary[f'median_{peer}']:,.1f} | "
             f"{summary['median_ratio']:.3f}× |")
with open(f"{out}/rounds.md", "w") as f:
    f.write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
