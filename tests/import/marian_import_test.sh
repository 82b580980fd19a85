#!/usr/bin/env bash
# nmt import --format marian, checked against transformers itself: tests/import/make_marian_fixture.py
# saves small random MarianMTModel directories with the real transformers (.venv/hf) and its
# generate() outputs; each is imported, and for its 50 sentences (tests/import/compare_marian.py)
# nmt's greedy and beam-4 translations must be transformers' and the teacher-forced
# log-probability of every token of transformers' greedy outputs (forced_log_probs) within 1e-4
# of transformers' own:
#
#   base      swish, scaled, shared and tied embeddings, a random final_logits_bias, model.safetensors
#   tags      base with >>spa<< / >>fra<< / >>por<< target tags, sentences starting with one
#   bin       base saved as pytorch_model.bin only (torch.save's zip layout)
#   fp16      base stored in float16 (transformers ran it in float32, as nmt does)
#   separate  separate source and target vocabularies (vocab.json, target_vocab.json)
#
# Each variant's beam search runs as its imported configuration says: generate()'s 4 beams and
# stopping rule (decode.beam_stop best). Then, on these runs:
#   --target-lang spa on the tags model equals a leading >>spa<<; unknown languages are refused
#   fine-tuning base on data/sample (train --init-from) reports the share of unknown pieces,
#   lowers the validation loss (nmt eval), and the result exports
#   nmt serve of the tags model picks the tag from LibreTranslate's target
#   export --format huggingface of base, tags, separate and the fine-tuned run, loaded by
#   transformers alone (generate_exported.py), translates as nmt does, greedy and 4 beams; an
#   interleaved run and an existing --out are refused
#   the base run exported for CTranslate2 (.venv/ct2) translates its sentences as nmt does.
# Also: a pytorch_model.bin nmt cannot read (truncated) is refused (exit 2) with the command that
# converts it, and so are another architecture and an --out that exists, leaving nothing behind. Exits 77
# (ctest: skipped) with the reason when .venv/hf cannot be made (it borrows torch from
# .venv/torch2-2.11.0, which scripts/test-torch2.sh makes).
#
#   marian_import_test.sh NMT FORCED_LOG_PROBS
set -euo pipefail
nmt=$1
forced_log_probs=$2
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"  # nmt import points runs/latest at its run: keep that link here

fail() {
  echo "marian_import_test: $*" >&2
  exit 1
}
source "$source_dir/tests/script_helpers.sh"

if ! python=$("$source_dir/scripts/peers/setup-venv.sh" hf 2> venv.log); then
  echo "SKIPPED: the transformers comparison needs .venv/hf, which cannot be made here:"
  tail -n 3 venv.log
  exit 77
fi
"$python" "$source_dir/tests/import/make_marian_fixture.py" fixtures > fixtures.log 2>&1 ||
  { cat fixtures.log; fail "make_marian_fixture.py failed"; }

for variant in base tags bin fp16 separate; do
  "$nmt" -q import --format marian "fixtures/$variant" --out "runs/$variant" ||
    fail "$variant: import failed"
  python3 -c 'import json, sys; print("\n".join(s["source"] for s in json.load(open(sys.argv[1]))["sentences"]))' \
    "fixtures/$variant/reference.json" > "$variant.src"
  "$nmt" -q translate --model "runs/$variant" --strategy greedy --max-len 19 --precision fp32 \
    < "$variant.src" > "$variant.greedy" || fail "$variant: greedy translate failed"
  # The imported configuration holds generate()'s beam: 4 beams, its stopping rule (beam_stop best).
  "$nmt" -q translate --model "runs/$variant" --strategy beam --max-len 19 --precision fp32 \
    < "$variant.src" > "$variant.beam" || fail "$variant: beam translate failed"
  python3 "$source_dir/tests/import/compare_marian.py" translations \
    "fixtures/$variant/reference.json" "$variant.greedy" "$variant.beam" ||
    fail "$variant: nmt's translations differ from transformers'"
  python3 "$source_dir/tests/import/compare_marian.py" forced-input \
    "fixtures/$variant/reference.json" "runs/$variant" "$variant.forced.jsonl" > /dev/null ||
    fail "$variant: cannot map the reference's ids"
  "$forced_log_probs" "runs/$variant" "$variant.forced.jsonl" "$variant.log_probs.jsonl" 2> /dev/null ||
    fail "$variant: forced_log_probs failed"
  python3 "$source_dir/tests/import/compare_marian.py" log-probs \
    "fixtures/$variant/reference.json" "$variant.log_probs.jsonl" ||
    fail "$variant: nmt's log-probabilities differ from transformers'"
done

# --target-lang puts the tag before each sentence: the tags fixture's first half, written without
# its >>spa<<, translates as transformers translated it with the tag. An unknown language is
# refused with the model's list, and so is any on a model without tags.
python3 -c 'import json, sys
for s in json.load(open(sys.argv[1]))["sentences"][:25]: print(s["source"].removeprefix(">>spa<< "))' \
  fixtures/tags/reference.json > tags.untagged.src
"$nmt" -q translate --model runs/tags --target-lang spa --max-len 19 --precision fp32 \
  < tags.untagged.src > tags.target-lang.beam || fail "translate --target-lang spa failed"
head -n 25 tags.beam | cmp -s - tags.target-lang.beam ||
  fail "--target-lang spa translates otherwise than a leading >>spa<<"
expect_failure() {
  local name=$1 expected=$2
  shift 2
  set +e
  output=$("$@" 2>&1 < /dev/null)
  status=$?
  set -e
  [[ $status -eq 2 && $output == *"$expected"* ]] || fail "$name: exit $status, $output"
}
expect_failure "unknown target language" \
  "target_lang: the model has no tag >>deu<<; its target languages: fra por spa" \
  "$nmt" translate --model runs/tags --target-lang deu "Hello."
expect_failure "target language of a one-target model" "this model has no target-language tags" \
  "$nmt" translate --model runs/base --target-lang spa "Hello."

# Fine-tuning: the base model trained further on the bundled sample keeps Marian's tokenizers and
# lowers the loss on the new run's validation split; the fine-tuned run evaluates and exports.
cat > finetune.json <<JSON
{"data": {"path": "$source_dir/data/sample/en-es.tsv", "valid_fraction": 0.1, "test_fraction": 0.05},
 "train": {"batch_size": 32, "epochs": 3, "lr": 0.001, "schedule": "constant", "seed": 23},
 "decode": {"beam_stop": "best"}}
JSON
"$nmt" train --config finetune.json --init-from runs/base --out runs/finetuned > finetune.log 2>&1 ||
  { tail finetune.log; fail "fine-tuning failed"; }
grep -q "spell 0.00% of the training split's source pieces" finetune.log ||
  fail "fine-tuning did not report the share of unknown pieces"
cut -f1 runs/finetuned/valid.tsv > valid.src
cut -f2 runs/finetuned/valid.tsv > valid.ref
loss_of() {
  "$nmt" eval --model "$1" --src valid.src --ref valid.ref --json 2> /dev/null |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["nll"])'
}
before=$(loss_of runs/base) && after=$(loss_of runs/finetuned) || fail "eval failed"
python3 -c "import sys; sys.exit(0 if $after < $before else 1)" ||
  fail "fine-tuning did not lower the validation loss ($before -> $after)"
echo "marian_import_test: fine-tuning: validation loss per token $before -> $after"
"$nmt" -q export --format ctranslate2 --model runs/finetuned --out finetuned.ct2 ||
  fail "exporting the fine-tuned run failed"

# Serving the multi-target model: LibreTranslate's target chooses the tag.
"$nmt" serve --model runs/tags --port 0 --precision fp32 --max-len 19 > serve.log 2>&1 &
server=$!
trap 'kill $server 2> /dev/null || true; rm -rf "$scratch"' EXIT
port=$(nmt_serve_port serve.log $server)
first=$(head -n 1 tags.untagged.src)
answer=$(curl -s "http://127.0.0.1:$port/translate" -H 'Content-Type: application/json' \
  -d "$(python3 -c 'import json, sys; print(json.dumps({"q": sys.argv[1], "source": "en", "target": "spa"}))' "$first")")
expected=$(head -n 1 tags.beam)
[[ $(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["translatedText"])' "$answer") == "$expected" ]] ||
  fail "serve, target spa: $answer, expected $expected"
refusal=$(curl -s "http://127.0.0.1:$port/translate" -H 'Content-Type: application/json' \
  -d '{"q": "Hello.", "source": "en", "target": "deu"}')
[[ $refusal == *"deu is not one of this model's target languages (fra, por, spa)"* ]] ||
  fail "serve, target deu: $refusal"
kill $server

# The transformers export: imported runs and the fine-tuned one, loaded by transformers alone,
# translate as nmt translates them, greedy and with 4 beams.
head -n 20 valid.src > finetuned.src
for run in finetuned base tags separate; do
  "$nmt" -q export --format huggingface --model "runs/$run" --out "$run.hf" ||
    fail "$run: export --format huggingface failed"
  sources=$([[ $run == finetuned ]] && echo finetuned.src || echo "$run.src")
  if [[ $run == finetuned ]]; then
    for strategy in greedy beam; do
      "$nmt" -q translate --model runs/finetuned --strategy "$strategy" --beam-size 4 --max-len 19 \
        --precision fp32 < finetuned.src > "finetuned.$strategy" || fail "finetuned: translate failed"
    done
  fi
  "$python" "$source_dir/tests/import/generate_exported.py" "$run.hf" "$sources" "$run.exported" ||
    fail "$run: transformers cannot use the export"
  for strategy in greedy beam; do
    cmp -s "$run.$strategy" "$run.exported.$strategy" ||
      { diff "$run.$strategy" "$run.exported.$strategy" | head; fail "$run: the export's $strategy translations differ"; }
  done
done
cp -r runs/finetuned interleaved
sed -i 's/"positions": "split"/"positions": "interleaved"/' interleaved/config.json
expect_failure "an interleaved run" 'its sinusoid positions are interleaved (model.positions "interleaved")' \
  "$nmt" export --format huggingface --model interleaved --out interleaved.hf
expect_failure "an existing --out" "is not empty; pass --force" \
  "$nmt" export --format huggingface --model runs/base --out base.hf
"$nmt" -q export --format huggingface --model runs/base --out base.hf --force ||
  fail "export --force over an earlier export failed"

# The CTranslate2 export of an imported run: CTranslate2 appends </s> itself (add_source_eos) and
# gives nmt's greedy translations.
ct2_python=$("$source_dir/scripts/peers/setup-venv.sh" ct2 2> ct2-venv.log) ||
  { tail -n 3 ct2-venv.log; fail "cannot make .venv/ct2"; }
"$nmt" -q export --format ctranslate2 --model runs/base --out base.ct2 || fail "export failed"
"$ct2_python" - base.ct2 base.src > base.ct2.greedy <<'PY' || fail "CTranslate2 failed"
import sys
import ctranslate2
import sentencepiece

model, sources = sys.argv[1], sys.argv[2]
pieces = sentencepiece.SentencePieceProcessor(model_file=model + "/marian.src.spm")
translator = ctranslate2.Translator(model)
lines = open(sources, encoding="utf-8").read().split("\n")[:-1]
results = translator.translate_batch([pieces.encode(line, out_type=str) for line in lines],
                                     beam_size=1, max_decoding_length=19, min_decoding_length=0)
for result in results:
    print("".join(result.hypotheses[0]).replace("\u2581", " ").strip())
PY
cmp -s base.greedy base.ct2.greedy ||
  { diff base.greedy base.ct2.greedy | head; fail "CTranslate2's translations of the export differ"; }

# Refusals: exit 2 with the reason, nothing written.
expect_import_refusal() {
  local name=$1 expected=$2
  shift 2
  set +e
  output=$("$nmt" import --format marian "$@" 2>&1)
  status=$?
  set -e
  [[ $status -eq 2 && $output == *"$expected"* ]] || fail "$name: exit $status, $output"
}
cp -r fixtures/bin truncated
head -c 5000 fixtures/bin/pytorch_model.bin > truncated/pytorch_model.bin
expect_import_refusal "a truncated pytorch_model.bin" "save_pretrained" truncated --out runs/truncated
[[ ! -e runs/truncated && ! -e runs/truncated.import.tmp ]] || fail "a refused import left files"
expect_import_refusal "existing --out" "already exists" fixtures/base --out runs/base
cp -r fixtures/base bart
sed -i 's/"model_type": "marian"/"model_type": "bart"/' bart/config.json
expect_import_refusal "bart" 'model_type "bart" is not a Marian model' bart --out runs/bart
[[ ! -e runs/bart ]] || fail "a refused import left runs/bart"
echo "marian_import_test: ok"
