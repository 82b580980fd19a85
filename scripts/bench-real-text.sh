#!/usr/bin/env bash
# Real text from a run's own test split (docs/real-text.md): what sentence splitting does to
# paragraphs, and what it costs on input that has one sentence per line.
#
#   scripts/bench-real-text.sh RUN [OUT_DIR]
#
# Paragraphs: the test split's pairs whose source is one sentence ending in . ! or ? and starting
# with a capital, in the split's order, three to a paragraph (joined by one space; the references
# likewise). Scored with `nmt score` (sacreBLEU's BLEU and chrF):
#   sentences    the sentences translated one by one (--no-split, one per line), joined by three
#   paragraphs   the paragraphs, one per line, cut into sentences (the default)
#   unsplit      the paragraphs, one per line, each given to the model whole (--no-split)
# Cost: the whole test split's sources, one per line, through `nmt translate` with and without
# --no-split, ROUNDS rounds alternating (the whole process timed, start-up included), and whether
# the two outputs are the same. HTML: the same sources as one page, a <p> each, through
# `nmt translate --format html`: its time and peak memory (VmHWM, /usr/bin/time -v) beside those
# of the text lines, and whether the page's texts are the lines' translations (escaped as HTML).
# Decoding: DECODE_FLAGS (default --strategy greedy).
#
# Environment: NMT (build/src/nmt), ROUNDS (5), DECODE_FLAGS. Writes OUT_DIR (default
# data/benchmarks/real-text-<UTC date>/): command.txt, machine.txt (date, CPU model and ISA
# flags, tier, commit), the inputs and outputs, scores.json, timings.tsv and results.md. Timings
# mean something only on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
run=${1:?usage: scripts/bench-real-text.sh RUN [OUT_DIR]}
out=${2:-data/benchmarks/real-text-$(date -u +%Y-%m-%d)}
nmt=${NMT:-build/src/nmt}
rounds=${ROUNDS:-5}
read -r -a decode <<< "${DECODE_FLAGS:---strategy greedy}"
[[ -f $run/test.tsv ]] || { echo "bench-real-text: $run/test.tsv does not exist" >&2; exit 2; }
mkdir -p "$out"
echo "scripts/bench-real-text.sh $*  (NMT=$nmt ROUNDS=$rounds DECODE_FLAGS=${decode[*]})" \
  > "$out/command.txt"
{
  scripts/machine-header.sh
  echo "run: $run"
  "$nmt" --version | sed 's/^/    /'
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/machine.txt"

cut -f1 "$run/test.tsv" > "$out/test.src"
python3 - "$run/test.tsv" "$out" <<'PY'
import sys
split, out = sys.argv[1], sys.argv[2]
pairs = [line.rstrip("\n").split("\t")[:2] for line in open(split, encoding="utf-8")]
# One sentence: a capital first, the end punctuation last, none inside.
def one_sentence(text):
    inner = text[:-1]
    return (text[:1].isupper() and text[-1:] in ".!?"
            and not any(mark + " " in inner for mark in ".!?"))
kept = [pair for pair in pairs if one_sentence(pair[0])]
kept = kept[: len(kept) // 3 * 3]
with open(f"{out}/sentences.src", "w") as src, open(f"{out}/sentences.ref", "w") as ref:
    for source, reference in kept:
        src.write(source + "\n")
        ref.write(reference + "\n")
with open(f"{out}/paragraphs.src", "w") as src, open(f"{out}/paragraphs.ref", "w") as ref:
    for i in range(0, len(kept), 3):
        src.write(" ".join(p[0] for p in kept[i:i + 3]) + "\n")
        ref.write(" ".join(p[1] for p in kept[i:i + 3]) + "\n")
PY
"$nmt" -q translate --model "$run" "${decode[@]}" --no-split < "$out/sentences.src" \
  > "$out/sentences.hyp"
paste -d' ' - - - < "$out/sentences.hyp" > "$out/sentences-joined.hyp"
"$nmt" -q translate --model "$run" "${decode[@]}" < "$out/paragraphs.src" > "$out/paragraphs.hyp"
"$nmt" -q translate --model "$run" "${decode[@]}" --no-split < "$out/paragraphs.src" \
  > "$out/unsplit.hyp"
{
  echo "{"
  for variant in sentences-joined paragraphs unsplit; do
    printf '"%s": ' "$variant"
    "$nmt" -q score --hyp "$out/$variant.hyp" --ref "$out/paragraphs.ref" --json
    [[ $variant == unsplit ]] || echo ","
  done
  echo "}"
} > "$out/scores.json"

echo -e "round\tside\tseconds" > "$out/timings.tsv"
for round in $(seq "$rounds"); do
  for side in no-split split; do
    flags=()
    [[ $side == no-split ]] && flags=(--no-split)
    start=$(date +%s.%N)
    "$nmt" -q translate --model "$run" "${decode[@]}" "${flags[@]}" < "$out/test.src" \
      > "$out/test-$side.hyp"
    end=$(date +%s.%N)
    echo -e "$round\t$side\t$(echo "$end - $start" | bc)" >> "$out/timings.tsv"
  done
done
python3 - "$out/test.src" > "$out/test.html" <<'PY'
import html, sys
print("<!DOCTYPE html><html><head><title>test</title></head><body>")
for line in open(sys.argv[1], encoding="utf-8"):
    print(f"<p>{html.escape(line.rstrip(chr(10)), quote=False)}</p>")
print("</body></html>")
PY
for side in text html; do
  flags=() input=$out/test.src
  [[ $side == html ]] && flags=(--format html) input=$out/test.html
  /usr/bin/time -v "$nmt" -q translate --model "$run" "${decode[@]}" "${flags[@]}" < "$input" \
    > "$out/memory-$side.out" 2> "$out/memory-$side.time"
done
python3 - "$out" <<'PY' > "$out/results.md"
import csv, json, statistics, sys
out = sys.argv[1]
scores = json.load(open(f"{out}/scores.json"))
lines = sum(1 for _ in open(f"{out}/paragraphs.src"))
print(f"Paragraphs of three sentences from the test split: {lines}.\n")
print("| input | BLEU | chrF |")
print("| --- | ---: | ---: |")
names = {"sentences-joined": "the sentences one by one, joined",
         "paragraphs": "paragraphs, cut into sentences (default)",
         "unsplit": "paragraphs given whole (--no-split)"}
for key, name in names.items():
    print(f"| {name} | {scores[key]['bleu']['score']:.2f} | {scores[key]['chrf']['score']:.2f} |")
times = {"no-split": [], "split": []}
for row in csv.DictReader(open(f"{out}/timings.tsv"), delimiter="\t"):
    times[row["side"]].append(float(row["seconds"]))
sentences = sum(1 for _ in open(f"{out}/test.src"))
same = open(f"{out}/test-split.hyp").read() == open(f"{out}/test-no-split.hyp").read()
differ = sum(a != b for a, b in zip(open(f"{out}/test-split.hyp"), open(f"{out}/test-no-split.hyp")))
print(f"\nThe test split's {sentences} sources, one per line, whole process, "
      f"{len(times['split'])} rounds alternating:\n")
print("| round | --no-split s | split s |")
print("| ---: | ---: | ---: |")
for r, (a, b) in enumerate(zip(times["no-split"], times["split"]), 1):
    print(f"| {r} | {a:.3f} | {b:.3f} |")
a, b = statistics.median(times["no-split"]), statistics.median(times["split"])
print(f"| median | {a:.3f} | {b:.3f} |")
print(f"\nsplit / --no-split time (medians): {b / a:.3f}; outputs identical: {same} "
      f"({differ} lines differ: sources with more than one sentence)")

import html, re
def time_v(side):
    text = open(f"{out}/memory-{side}.time").read()
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    seconds = sum(float(part) * 60 ** i for i, part in enumerate(reversed(wall.split(":"))))
    return seconds, rss
page = open(f"{out}/memory-html.out", encoding="utf-8").read()
texts = [html.unescape(t) for t in re.findall(r"<p>(.*?)</p>", page, re.S)]
lines = [l.rstrip("\n") for l in open(f"{out}/memory-text.out", encoding="utf-8")]
print(f"\nThe same {sentences} sources as one HTML page (a <p> each) and as text lines, one run "
      "each, /usr/bin/time -v:\n")
print("| input | seconds | peak RSS MiB |")
print("| --- | ---: | ---: |")
for side in ("text", "html"):
    seconds, rss = time_v(side)
    print(f"| {side} | {seconds:.2f} | {rss / 1024:.1f} |")
matching = sum(a == b for a, b in zip(texts, lines))
print(f"\nthe page's paragraphs ({len(texts)}) that are their line's translation: {matching} of "
      f"{len(lines)}")
PY
cat "$out/results.md"
echo "bench-real-text: record in $out" >&2
