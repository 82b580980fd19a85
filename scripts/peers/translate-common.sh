# What scripts/peers/bench-translate.sh and bench-whole-process.sh share, sourced by both (needs
# bash, set -euo pipefail, and $nmt set to the nmt binary):
#
#   hold_to_tier SCRIPT TIER             exports the variables that hold nmt and CTranslate2 to TIER
#   make_test_run SCRIPT MODEL N RUN RAW a run directory RUN of MODEL's files with a test split of
#                                        MODEL's first N test sentences, and RAW/sources.txt,
#                                        RAW/references.txt
#   export_ctranslate2 RUN DIR PYTHON    exports RUN to DIR and sets $tokenizer (spm or word) and
#                                        $length_penalty as CTranslate2's side needs them

# --tier: "" (none), avx2 (as on a CPU without AVX-512: nmt's AVX2 kernels, CTranslate2's own and
# its libraries' AVX2 ones), avx_vnni (AVX2 with AVX-VNNI, as on Intel's client CPUs since Alder
# Lake: nmt's AVX-VNNI kernel; CTranslate2's own kernels at AVX2, it has no level between AVX2 and
# AVX-512, and its libraries at their AVX-VNNI levels).
hold_to_tier() {
  local script=$1 tier=$2
  case $tier in
    "") ;;
    avx2)
      export NMT_CPU_ISA=avx2 CT2_FORCE_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2 \
        ONEDNN_MAX_CPU_ISA=AVX2 ;;
    avx_vnni)
      export NMT_CPU_ISA=avx_vnni CT2_FORCE_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2_E1 \
        ONEDNN_MAX_CPU_ISA=AVX2_VNNI ;;
    *) echo "$script: --tier: expected avx2 or avx_vnni, got '$tier'" >&2; exit 2 ;;
  esac
}

# A run directory of its own (the run's files linked, a test split of the first N sentences), so
# that nmt eval's records stay out of the real run's metrics.
make_test_run() {
  local script=$1 model=$2 sentences=$3 run=$4 raw=$5
  mkdir -p "$run" "$raw"
  local file
  for file in "$model"/config.json "$model"/vocab*.txt "$model"/spm*.model "$model"/*.pt; do
    [[ -e $file ]] && ln -s "$(cd "$(dirname "$file")" && pwd)/$(basename "$file")" "$run/"
  done
  [[ -s $model/test.tsv ]] || { echo "$script: $model/test.tsv is empty" >&2; exit 2; }
  # The first N sentences, the split repeated when it has fewer (no pipe into head: under
  # pipefail, cat ending on SIGPIPE would end the script).
  awk -v n="$sentences" '{ lines[NR] = $0 } END { for (i = 0; i < n; ++i) print lines[i % NR + 1] }' \
    "$model/test.tsv" > "$run/test.tsv"
  cut -f1 "$run/test.tsv" > "$raw/sources.txt"
  cut -f2 "$run/test.tsv" > "$raw/references.txt"
}

export_ctranslate2() {
  local run=$1 dir=$2 python=$3
  "$nmt" -q export --format ctranslate2 --model "$run" --out "$dir"
  tokenizer=word
  [[ -n $(ls "$dir"/spm*.model 2> /dev/null) ]] && tokenizer=spm
  length_penalty=$("$python" -c 'import json, sys
print(json.load(open(sys.argv[1]))["decode"]["length_penalty"])' "$run/config.json")
}
