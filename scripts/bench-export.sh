#!/usr/bin/env bash
# What an exported model costs its users: the size of each export of a run and the time the library
# that reads it takes to load it, in fresh processes, with nmt's own start as the reference.
#
#   scripts/bench-export.sh --model RUN [--runs N] [--out DIR]
#
# For RUN (the README's recipe: runs/en-es): `nmt export` to transformers (.venv/hf) and to an
# Argos Translate package (.venv/argos), timed; then N times each (default 5), alternating:
#   nmt           `nmt translate "I am hungry."` start to exit (the run's decoding)
#   huggingface   scripts/peers/export_load.py: import transformers, from_pretrained (model and
#                 tokenizer), the first generate() of the sentence
#   argos         scripts/peers/export_load.py: import argostranslate, the first translation (which
#                 loads the CTranslate2 model); install_from_path timed once, the first round
# Writes DIR (default data/benchmarks/exports-<UTC date>): command.txt, machine.txt (date, commit,
# CPU and ISA flags), raw.jsonl (one line per measurement), summary.md (sizes and medians), and
# the exports' README.md files (model-card.md, argos-readme.md). Figures mean something only on an
# otherwise idle machine.
# Environment: NMT (default build/src/nmt).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
nmt=${NMT:-$root/build/src/nmt}
model=""
runs=5
out=""
command_line="scripts/bench-export.sh $*"
while [[ $# -gt 0 ]]; do
  case $1 in
    --model) model=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "bench-export: unknown argument $1 (see the top of $0)" >&2; exit 2 ;;
  esac
done
[[ -n $model && -f $model/config.json ]] ||
  { echo "bench-export: --model RUN is required (a trained run)" >&2; exit 2; }
hf_python=$("$root/scripts/peers/setup-venv.sh" hf)
argos_python=$("$root/scripts/peers/setup-venv.sh" argos)
out=${out:-$root/data/benchmarks/exports-$(date -u +%Y-%m-%d)}
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Argos reads and writes under the XDG folders: keep the user's out of it.
export XDG_DATA_HOME=$scratch/xdg-data XDG_CONFIG_HOME=$scratch/xdg-config
export XDG_CACHE_HOME=$scratch/xdg-cache
sentence="I am hungry."
# The exports are named after the run, as their READMEs then are.
name=$(basename "$(cd "$model" && pwd -P)")
hf_dir=$scratch/$name
package=$scratch/$name.argosmodel

echo "$command_line" > "$out/command.txt"
{
  (cd "$root" && scripts/machine-header.sh)
  echo "host: $(uname -srm)"
  echo "nmt: $("$nmt" --version | head -2 | tr '\n' ' ')"
  echo "transformers: $("$hf_python" -c 'import transformers, torch; print(transformers.__version__, "torch", torch.__version__)')"
  echo "argostranslate: $("$argos_python" -c 'import importlib.metadata as m; print(m.version("argos-translate-lt"), "ctranslate2", m.version("ctranslate2"))')"
  echo "model: $(cd "$model" && pwd -P)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/machine.txt"

# seconds COMMAND...: runs it, prints its wall time in seconds.
seconds() {
  local start=$EPOCHREALTIME
  "$@" > /dev/null
  awk -v end="$EPOCHREALTIME" -v start="$start" 'BEGIN { printf "%.3f", end - start }'
}

raw=$out/raw.jsonl
: > "$raw"
hf_seconds=$(seconds "$nmt" -q export --format huggingface --model "$model" --out "$hf_dir")
argos_seconds=$(seconds "$nmt" -q export --format argos --model "$model" \
  --out "$package")
hf_bytes=$(du -sb "$hf_dir" | cut -f1)
argos_bytes=$(stat -c %s "$package")
echo "{\"export\": \"huggingface\", \"seconds\": $hf_seconds, \"bytes\": $hf_bytes}" >> "$raw"
echo "{\"export\": \"argos\", \"seconds\": $argos_seconds, \"bytes\": $argos_bytes}" >> "$raw"
cp "$hf_dir/README.md" "$out/model-card.md"
"$argos_python" -c 'import sys, zipfile
archive = zipfile.ZipFile(sys.argv[1])
print(archive.read(next(n for n in archive.namelist() if n.endswith("/README.md"))).decode(), end="")' \
  "$package" > "$out/argos-readme.md"

for round in $(seq "$runs"); do
  start=$EPOCHREALTIME
  translation=$("$nmt" -q translate --model "$model" "$sentence")
  wall=$(awk -v end="$EPOCHREALTIME" -v start="$start" 'BEGIN { printf "%.3f", end - start }')
  "$argos_python" -c 'import json, sys
print(json.dumps({"format": "nmt", "round": int(sys.argv[1]), "wall_s": float(sys.argv[2]),
                  "translation": sys.argv[3]}, ensure_ascii=False))' "$round" "$wall" "$translation" \
    >> "$raw"
  for format in huggingface argos; do
    start=$EPOCHREALTIME
    if [[ $format == huggingface ]]; then
      line=$("$hf_python" "$root/scripts/peers/export_load.py" huggingface "$hf_dir" "$sentence")
    else
      line=$("$argos_python" "$root/scripts/peers/export_load.py" argos "$package" \
        "$sentence" "$scratch/packages")
    fi
    wall=$(awk -v end="$EPOCHREALTIME" -v start="$start" 'BEGIN { printf "%.3f", end - start }')
    echo "${line%\}}, \"round\": $round, \"wall_s\": $wall}" >> "$raw"
  done
done

"$argos_python" - "$raw" > "$out/summary.md" <<'PYTHON'
import json, statistics, sys
records = [json.loads(line) for line in open(sys.argv[1])]
exports = {r["export"]: r for r in records if "export" in r}
def median(fmt, key):
    values = [r[key] for r in records if r.get("format") == fmt and r.get(key) is not None]
    return f"{statistics.median(values):.2f}" if values else "-"
print("| | nmt | transformers | Argos Translate |")
print("| --- | ---: | ---: | ---: |")
print(f"| size (MB) | | {exports['huggingface']['bytes'] / 1e6:.1f} | {exports['argos']['bytes'] / 1e6:.1f} |")
print(f"| nmt export (s) | | {exports['huggingface']['seconds']:.2f} | {exports['argos']['seconds']:.2f} |")
print(f"| import of the library (s, median) | | {median('huggingface', 'import_s')} | {median('argos', 'import_s')} |")
print(f"| load (s, median) | | {median('huggingface', 'load_s')} | (in the next row) |")
print(f"| first translation (s, median) | | {median('huggingface', 'first_translation_s')} | {median('argos', 'load_and_first_translation_s')} (with the load) |")
print(f"| process start to exit (s, median) | {median('nmt', 'wall_s')} | {median('huggingface', 'wall_s')} | {median('argos', 'wall_s')} |")
install = [r["install_s"] for r in records if r.get("format") == "argos" and r.get("install_s")]
if install:
    print(f"\nArgos's install_from_path: {install[0]:.2f} s (once).")
print("\nTranslations of \"I am hungry.\": " + "; ".join(
    sorted({f"{r['format']}: {r['translation']}" for r in records if "translation" in r})))
PYTHON
cat "$out/summary.md"
echo "bench-export: record in $out" >&2
