#!/usr/bin/env bash
# nmt distil end to end on a synthetic corpus: an ensemble of two small teachers translates their
# training sources (each as written, one sentence: exactly as `nmt translate --no-split
# --no-sentence-case` with the ensemble translates it); a distillation
# killed with SIGKILL, one stopped with SIGINT and one whose file ends in a torn line all continue
# to the same corpus as one never interrupted; --min-score refilters without translating again;
# refusals name what is wrong; a student with its own depths trains on the corpus with the first
# teacher's vocabulary and held-out splits, and translates in an ensemble with a teacher.
set -euo pipefail
nmt=$1
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
source "$source_dir/tests/script_helpers.sh"
scratch=$(mktemp -d)
trap 'kill $(jobs -p) 2> /dev/null || true; rm -rf "$scratch"' EXIT
fail() { echo "distil_test: $*" >&2; exit 1; }
cd "$scratch"

# 6,000 pairs over 4,000 distinct sources: enough chunks of 25 to kill a distillation between.
python3 - <<'PY'
import random
random.seed(1)
adjectives = [("red", "rojo"), ("blue", "azul"), ("big", "grande"), ("old", "viejo"), ("new", "nuevo")]
nouns = [("cat", "gato"), ("dog", "perro"), ("house", "casa"), ("car", "coche"), ("book", "libro")]
with open("pairs.tsv", "w") as out:
    for _ in range(6000):
        (en_adj, es_adj), (en_noun, es_noun) = random.choice(adjectives), random.choice(nouns)
        number = random.randrange(200)
        out.write(f"the {en_adj} {en_noun} number {number}\tel {es_noun} {es_adj} numero {number}\n")
PY
cat > teacher.json <<'JSON'
{"data": {"path": "pairs.tsv", "valid_fraction": 0.05, "test_fraction": 0.05, "seed": 23},
 "text": {"clean": "normalize", "tokenizer": "word"},
 "model": {"d_model": 32, "layers": 1, "heads": 2, "ff_mult": 2},
 "train": {"batch_size": 64, "epochs": 2, "threads": 1, "lr": 0.003}}
JSON
cat > student.json <<'JSON'
{"model": {"d_model": 32, "encoder_layers": 2, "decoder_layers": 1, "heads": 2, "ff_mult": 2},
 "train": {"batch_size": 64, "max_steps": 20, "threads": 1}}
JSON
"$nmt" -q train --config teacher.json --out t1 --seed 1
"$nmt" -q train --config teacher.json --out t2 --seed 2
sources=$(cut -f1 t1/train.tsv | sort -u | wc -l)

# distil OUT [FLAGS...]: the ensemble's distillation of t1's training sources, in chunks of 10
# unless FLAGS say otherwise. Those stopped below continue in other chunks than `whole` (chunks of
# 1000) was translated in: the same translations all the same.
teachers=(--model t1 --model t2)
decoding=(--precision fp32 --strategy greedy --threads 1)
distil() {
  local out=$1
  shift
  [[ " $* " == *" --chunk "* ]] || set -- --chunk 10 "$@"
  "$nmt" distil "${teachers[@]}" "${decoding[@]}" --out "$out" "$@"
}

distil whole --chunk 1000 2> whole.log
[[ $(wc -l < whole/distilled.tsv) -eq $sources ]] || fail "$(wc -l < whole/distilled.tsv) pairs for $sources sources"
[[ $(cut -f1 whole/distilled.tsv | sort -u | wc -l) -eq $sources ]] || fail "a source is missing or repeated"
cut -f1 whole/distilled.tsv | sort > distilled-sources
cut -f1 t1/train.tsv | sort -u | cmp -s - distilled-sources || fail "the sources are not t1's training sources"
head -40 whole/distilled.tsv | cut -f1 |
  "$nmt" -q translate --no-split --no-sentence-case --model t1 --model t2 --precision fp32 \
    --strategy greedy --threads 1 > expected
head -40 whole/distilled.tsv | cut -f2 | cmp -s - expected ||
  fail "distilled targets differ from nmt translate's with the same ensemble"
python3 - "$sources" "$(wc -l < t1/train.tsv)" <<'PY' || fail "distil.json: $(cat whole/distil.json)"
import json, sys
record = json.load(open("whole/distil.json"))
assert len(record["teachers"]) == 2, record["teachers"]
assert record["decoding"]["strategy"] == "greedy" and "threads" not in record["decoding"]
assert record["translated"] == record["sources"] == int(sys.argv[1])
assert record["corpus"]["kept"] == int(sys.argv[1]) and record["corpus"]["training_pairs"] == int(sys.argv[2])
assert record["corpus"]["min_score"] is None
PY

# wait_for_translations OUT PID: until OUT has translations written (the process still running).
wait_for_translations() {
  for _ in $(seq 2000); do
    [[ -s $1/teacher-translations.tsv ]] && return 0
    kill -0 "$2" 2> /dev/null || fail "the distillation into $1 ended before it could be stopped"
    sleep 0.01
  done
  fail "no translations in $1 after 20 s"
}

# Killed for real while translating, then the same command.
"$nmt" distil "${teachers[@]}" "${decoding[@]}" --out killed --chunk 10 2> killed.log &
pid=$!
wait_for_translations killed $pid
kill -KILL $pid
wait $pid 2> /dev/null || true
done_at_kill=$(grep -c . killed/teacher-translations.tsv || true)
[[ $done_at_kill -lt $sources ]] || fail "the distillation had finished when it was killed"
[[ ! -e killed/distilled.tsv ]] || fail "a killed distillation wrote its corpus"
distil killed 2> killed-again.log
grep -q "translated before" killed-again.log || fail "did not continue: $(cat killed-again.log)"
cmp -s whole/distilled.tsv killed/distilled.tsv || fail "the continued corpus differs"

# SIGTERM (what SIGINT does too; a background job of a script ignores SIGINT): exit 130 with the
# translations kept, then the same command.
"$nmt" distil "${teachers[@]}" "${decoding[@]}" --out stopped --chunk 10 2> stopped.log &
pid=$!
wait_for_translations stopped $pid
kill -TERM $pid
status=0
wait $pid || status=$?
[[ $status -eq 130 ]] || fail "SIGTERM: exit $status, $(cat stopped.log)"
grep -q "interrupted; the translations so far are in" stopped.log || fail "$(cat stopped.log)"
distil stopped 2> /dev/null
cmp -s whole/distilled.tsv stopped/distilled.tsv || fail "the corpus after SIGTERM differs"

# A line torn by a kill in the middle of a write is cut off; the rest is kept.
mkdir torn
cp whole/distil.json torn/
head -30 whole/teacher-translations.tsv > torn/teacher-translations.tsv
printf '4\t-0.5\tel gato ro' >> torn/teacher-translations.tsv
distil torn 2> torn.log
grep -q "; 30 translated before" torn.log || fail "torn line: $(cat torn.log)"
cmp -s whole/distilled.tsv torn/distilled.tsv || fail "the corpus after a torn line differs"

# --min-score refilters the translations without translating them again.
sum_before=$(md5sum < whole/teacher-translations.tsv)
distil whole --min-score -0.3 2> filtered.log
[[ $(md5sum < whole/teacher-translations.tsv) == "$sum_before" ]] || fail "--min-score translated again"
kept=$(wc -l < whole/distilled.tsv)
below=$(awk -F'\t' '$2 < -0.3' whole/teacher-translations.tsv | wc -l)
[[ $below -gt 0 && $kept -eq $((sources - below)) ]] || fail "--min-score -0.3 kept $kept of $sources ($below below)"
grep -q "dropped: 0 empty, $below below --min-score" filtered.log || fail "$(cat filtered.log)"

# Refusals, each naming what is wrong; nothing of an earlier distillation is touched.
expect_refusal "score above 0" "--min-score: a mean log-probability per token is at most 0, got 0.5" \
  none "$nmt" distil --model t1 --out none --min-score 0.5
expect_refusal "chunk 0" "--chunk: expected a positive number of sources, got 0" \
  none "$nmt" distil --model t1 --out none --chunk 0
expect_refusal "other teachers" \
  "--out: whole holds a distillation by other teachers or settings (distil.json: teachers differs)" \
  none "$nmt" distil --model t1 --out whole --precision fp32 --strategy greedy
expect_refusal "other decoding" "(distil.json: decoding differs)" \
  none "$nmt" distil --model t1 --model t2 --out whole --precision fp32 --strategy beam
head -3 whole/teacher-translations.tsv > bad.tsv
echo "x	y" >> bad.tsv
mkdir bad && cp whole/distil.json bad/ && cp bad.tsv bad/teacher-translations.tsv
set +e
output=$(distil bad 2>&1)
status=$?
set -e
[[ $status -eq 1 && $output == *"bad/teacher-translations.tsv:4: expected \"index<TAB>score<TAB>translation\""* ]] ||
  fail "malformed line: exit $status, $output"

# The student: its own depths, t1's vocabulary and held-out splits, the corpus as training data.
distil student --student student.json --set train.max_steps=12 2> student.log
python3 - "$scratch" <<'PY' || fail "student config: $(cat student/config.json)"
import json, sys
config = json.load(open("student/config.json"))
root = sys.argv[1]
assert config["text"]["vocab_from"] == f"{root}/t1", config["text"]
assert config["text"]["clean"] == "normalize" and config["text"]["tokenizer"] == "word"
assert config["data"]["train"] == [{"path": f"{root}/student/distilled.tsv"}], config["data"]
assert config["data"]["valid"] == [{"path": f"{root}/t1/valid.tsv"}]
assert config["data"]["test"] == [{"path": f"{root}/t1/test.tsv"}]
assert (config["model"]["encoder_layers"], config["model"]["decoder_layers"]) == (2, 1)
assert config["train"]["max_steps"] == 12
PY
cmp -s t1/vocab.src.txt student/vocab.src.txt && cmp -s t1/vocab.tgt.txt student/vocab.tgt.txt ||
  fail "the student's vocabularies are not t1's"
cmp -s t1/valid.tsv student/valid.tsv && cmp -s t1/test.tsv student/test.tsv ||
  fail "the student's held-out splits are not t1's"
grep -q '"step":12' student/metrics.jsonl || fail "the student did not train 12 steps"
"$nmt" -q eval --model student --threads 1 --json > /dev/null
[[ $("$nmt" -q translate --model student --model t1 "the red cat number 3" | wc -l) -eq 1 ]] ||
  fail "the student does not translate in an ensemble with its teacher"
# `nmt prepare` takes a vocabulary from a run the same way.
"$nmt" -q prepare --config teacher.json --set text.vocab_from=t1 --set text.clean=notebook --out prepared
cmp -s t1/vocab.src.txt prepared/vocab.src.txt || fail "nmt prepare did not take t1's vocabulary"
grep -q '"clean": "normalize"' prepared/config.json || fail "nmt prepare kept its own text settings"
# The same command again continues the finished student rather than starting it over.
distil student --student student.json --set train.max_steps=12 2> student-again.log
grep -q "continuing the student" student-again.log || fail "$(cat student-again.log)"
echo "distil_test: ok ($sources sources; killed after $done_at_kill)"
