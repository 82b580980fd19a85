#!/usr/bin/env bash
# nmt export --format huggingface of nmt's own runs, checked by transformers itself
# (tests/export/huggingface_round_trip.py, transformers 5.24.0 from .venv/hf) on four short runs
# of the sample corpus:
#
#   recipe        configs/tatoeba-en-es.json's model at a smaller size: pre-norm, one
#                 SentencePiece vocabulary, shared + tied + scaled embeddings, beam 5 (Pegasus)
#   pre-apart     pre-norm, embeddings neither shared nor tied, swish, a 3-layer encoder and a
#                 1-layer decoder (Pegasus with every table written)
#   post-gelu     post-norm, gelu, shared + tied embeddings (MarianMTModel)
#   post-untied   post-norm, shared embeddings, a separate output layer (MarianMTModel)
#
# For each, on every test sentence: AutoTokenizer gives nmt's source pieces, generate() with one
# beam gives nmt's fp32 greedy translation token for token and with 4 beams nmt's beam-4 text, the
# log-probabilities of nmt's translation are within 1e-4 of nmt's teacher-forced ones, and the
# tokenizer decodes it to nmt's text. The recipe's tokenizer also on text nmt normalises (odd
# whitespace, compatibility characters, characters the model has never seen). Also the command's
# refusals (exit 2, exact messages, nothing written) and the model card. Exits 77 (ctest: skipped) with the reason
# when .venv/hf cannot be made, after the refusals.
#
#   huggingface_round_trip_test.sh NMT REFERENCE_TRANSLATIONS
set -euo pipefail
nmt=$1
reference=$2
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"  # nmt train points runs/latest at its run: keep that link here

fail() {
  echo "huggingface_round_trip_test: $*" >&2
  exit 1
}
source "$source_dir/tests/script_helpers.sh"

train() {
  local name=$1
  shift
  timeout 600 "$nmt" -q train --set "data.path=$source_dir/data/sample/en-es.tsv" \
    --set train.max_steps=150 --set train.warmup=50 --set train.max_tokens=1000 \
    --out "$scratch/$name" "$@" || fail "training $name failed"
}

exported() {
  local name=$1
  train "$@"
  timeout 300 "$nmt" -q export --format huggingface --model "$name" --out "$name.hf" ||
    fail "exporting $name failed"
  timeout 300 "$reference" "$name" "$name.jsonl" || fail "reference of $name"
}

recipe=(--config "$source_dir/configs/tatoeba-en-es.json" --set model.d_model=64
  --set model.layers=2 --set text.vocab_size=500 --set train.average_last=0)
exported recipe "${recipe[@]}"
exported pre-apart "${recipe[@]}" --set model.share_embeddings=false \
  --set model.tie_embeddings=false --set model.activation=swish --set model.encoder_layers=3 \
  --set model.decoder_layers=1
exported post-gelu "${recipe[@]}" --set model.norm=post --set model.activation=gelu
exported post-untied "${recipe[@]}" --set model.norm=post --set model.tie_embeddings=false

grep -q '"PegasusForConditionalGeneration"' recipe.hf/config.json || fail "recipe: not Pegasus"
grep -q '"MarianMTModel"' post-gelu.hf/config.json || fail "post-gelu: not Marian"
[[ -f recipe.hf/tokenizer.json && ! -e recipe.hf/source.spm ]] || fail "recipe: tokenizer files"

# Refusals: exit 2 with the reason, nothing written.
train words --config "$source_dir/configs/quickstart.json" --set train.max_steps=20
expect_refusal "a word-vocabulary run" "words: cannot export to transformers: it has word \
vocabularies (text.tokenizer \"word\"), no SentencePiece model, and no transformers tokenizer \
splits text as nmt's word tokenizer does; train with text.tokenizer \"sentencepiece\"" words.hf \
  "$nmt" export --format huggingface --model words --out words.hf
train separate "${recipe[@]}" --set text.shared_vocab=false --set model.share_embeddings=false \
  --set train.max_steps=20
expect_refusal "separate vocabularies" "separate: cannot export to transformers: it has \
separate vocabularies (text.shared_vocab false), and the exported tokenizer is one for both \
languages; train with text.shared_vocab true" separate.hf \
  "$nmt" export --format huggingface --model separate --out separate.hf
cp -r recipe notebook
sed -i 's/"clean": "normalize"/"clean": "notebook"/' notebook/config.json
expect_refusal "text.clean notebook" "notebook: cannot export to transformers: its text.clean is \
\"notebook\", nmt's own cleaning, which no transformers tokenizer applies; train with text.clean \
\"normalize\"" notebook.hf "$nmt" export --format huggingface --model notebook --out notebook.hf
cp -r recipe bpe
sed -i 's/"model_type": "unigram"/"model_type": "bpe"/' bpe/config.json
expect_refusal "a BPE model" "bpe: cannot export to transformers: its SentencePiece model is BPE \
(text.model_type \"bpe\"), and only unigram models go out as a transformers tokenizer for now" \
  bpe.hf "$nmt" export --format huggingface --model bpe --out bpe.hf
expect_refusal "an ensemble" "--model was given 2 times: an ensemble translates as several \
models and exports as none; export each run on its own" ensemble.hf \
  "$nmt" export --format huggingface --model recipe --model post-gelu --out ensemble.hf
before=$(md5sum < recipe.hf/model.safetensors)
set +e
output=$("$nmt" export --format huggingface --model post-gelu --out recipe.hf 2>&1)
status=$?
set -e
[[ $status -eq 2 && $output == *"recipe.hf is not empty; pass --force"* ]] ||
  fail "export into a non-empty directory: exit $status, $output"
[[ $(md5sum < recipe.hf/model.safetensors) == "$before" ]] || fail "a refused export changed it"
"$nmt" -q export --format huggingface --model post-gelu --out forced.hf
"$nmt" -q export --format huggingface --model recipe --out forced.hf --force ||
  fail "--force over an earlier export"
cmp -s forced.hf/model.safetensors recipe.hf/model.safetensors || fail "--force wrote another model"

# The model card: no scores before nmt eval; after it, the test split's scores and signatures,
# the training's time and hardware.
grep -q "No \`nmt eval\` of these weights on the run's test split is recorded" recipe.hf/README.md ||
  fail "the model card of a run never evaluated"
"$nmt" -q eval --model recipe > /dev/null || fail "nmt eval recipe"
"$nmt" -q export --format huggingface --model recipe --out card.hf || fail "export after eval"
for expected in "sacreBLEU signatures: BLEU \`nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0\`" \
  "| BLEU | chrF |" "of training, " "- on cpu" "A PegasusForConditionalGeneration (en to es)"; do
  grep -qF -- "$expected" card.hf/README.md || fail "the model card lacks \"$expected\""
done

if ! python=$(timeout 900 "$source_dir/scripts/peers/setup-venv.sh" hf 2> venv.log); then
  echo "SKIPPED: the transformers round trip needs .venv/hf, which cannot be made here:"
  tail -n 3 venv.log
  exit 77
fi
cut -f1 recipe/test.tsv > test.src
for name in recipe pre-apart post-gelu post-untied; do
  "$nmt" -q translate --model "$name" --strategy beam --beam-size 4 --precision fp32 \
    < test.src > "$name.beam" || fail "$name: beam translate failed"
  timeout 600 "$python" "$source_dir/tests/export/huggingface_round_trip.py" "$name.hf" \
    "$name.jsonl" test.src "$name.beam" || fail "$name: transformers disagrees with nmt"
done
# Text nmt normalises before its tokenizer: runs of tabs and spaces, spaces at the ends, NFKC
# (the ligature, fullwidth letters), characters the model has never seen (byte pieces).
printf '%s\n' $'I  am\thungry.' '  Where is the ﬁrst bank?  ' 'Ｆｕｌｌｗｉｄｔｈ text' \
  'The café costs 5€, really?' 'Unseen: 漢字 and ∑ 😀' > odd.txt
timeout 300 "$reference" recipe odd.jsonl odd.txt || fail "reference of odd.txt"
timeout 600 "$python" "$source_dir/tests/export/huggingface_round_trip.py" recipe.hf odd.jsonl ||
  fail "recipe: transformers' tokenizer disagrees with nmt on odd text"
echo "huggingface_round_trip_test: ok"
