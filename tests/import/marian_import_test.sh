#!/usr/bin/env bash
# nmt import --format marian, checked against transformers itself: tests/import/make_marian_fixture.py
# saves small random MarianMTModel directories with the real transformers (.venv/hf) and its
# generate() outputs; each is imported and nmt's greedy translation of its 50 sentences must be
# transformers' (tests/import/compare_marian.py):
#
#   base      swish, scaled, shared and tied embeddings, a random final_logits_bias, model.safetensors
#   tags      base with >>spa<< / >>fra<< / >>por<< target tags, sentences starting with one
#   fp16      base stored in float16 (transformers ran it in float32, as nmt does)
#   separate  separate source and target vocabularies (vocab.json, target_vocab.json)
#
# The base run exported for CTranslate2 (.venv/ct2) translates its sentences as nmt does.
# Also: a directory with only pytorch_model.bin is refused (exit 2) with the command that converts
# it, and so are another architecture and an --out that exists, leaving nothing behind. Exits 77
# (ctest: skipped) with the reason when .venv/hf cannot be made (it borrows torch from
# .venv/torch2-2.11.0, which scripts/test-torch2.sh makes).
#
#   marian_import_test.sh NMT
set -euo pipefail
nmt=$1
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"  # nmt import points runs/latest at its run: keep that link here

fail() {
  echo "marian_import_test: $*" >&2
  exit 1
}

if ! python=$("$source_dir/scripts/peers/setup-venv.sh" hf 2> venv.log); then
  echo "SKIPPED: the transformers comparison needs .venv/hf, which cannot be made here:"
  tail -n 3 venv.log
  exit 77
fi
"$python" "$source_dir/tests/import/make_marian_fixture.py" fixtures > fixtures.log 2>&1 ||
  { cat fixtures.log; fail "make_marian_fixture.py failed"; }

for variant in base tags fp16 separate; do
  "$nmt" -q import --format marian "fixtures/$variant" --out "runs/$variant" ||
    fail "$variant: import failed"
  python3 -c 'import json, sys; print("\n".join(s["source"] for s in json.load(open(sys.argv[1]))["sentences"]))' \
    "fixtures/$variant/reference.json" > "$variant.src"
  "$nmt" -q translate --model "runs/$variant" --strategy greedy --max-len 19 --precision fp32 \
    < "$variant.src" > "$variant.greedy" || fail "$variant: translate failed"
  python3 "$source_dir/tests/import/compare_marian.py" "fixtures/$variant/reference.json" \
    "$variant.greedy" || fail "$variant: nmt's greedy translations differ from transformers'"
done

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
expect_refusal() {
  local name=$1 expected=$2
  shift 2
  set +e
  output=$("$nmt" import --format marian "$@" 2>&1)
  status=$?
  set -e
  [[ $status -eq 2 && $output == *"$expected"* ]] || fail "$name: exit $status, $output"
}
expect_refusal "pytorch_model.bin only" "save_pretrained" fixtures/bin --out runs/bin
[[ ! -e runs/bin && ! -e runs/bin.import.tmp ]] || fail "a refused import left files"
expect_refusal "existing --out" "already exists" fixtures/base --out runs/base
cp -r fixtures/base bart
sed -i 's/"model_type": "marian"/"model_type": "bart"/' bart/config.json
expect_refusal "bart" 'model_type "bart" is not a Marian model' bart --out runs/bart
[[ ! -e runs/bart ]] || fail "a refused import left runs/bart"
echo "marian_import_test: ok"
