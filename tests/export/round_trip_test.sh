#!/usr/bin/env bash
# nmt export --format ctranslate2, checked by CTranslate2 itself (tests/export/round_trip.py) on
# five runs of the sample corpus that cover every exportable kind of model:
#
#   quickstart  configs/quickstart.json as it is: word vocabularies, pre-norm, separate embeddings
#   post-tied   post-norm, one shared word vocabulary, shared + tied + scaled embeddings (30 steps)
#   spm-pre     SentencePiece, separate vocabularies, pre-norm, tied + scaled embeddings (30 steps)
#   spm-post    SentencePiece, one shared vocabulary, post-norm, shared embeddings (30 steps)
#   spm-marian  Marian's options: post-norm, swish, split sinusoids, shared + tied + scaled (30 steps)
# (post-tied uses gelu, spm-pre a 3-layer encoder and a 1-layer decoder).
#
# For each: model.bin is what CTranslate2's own writer makes of the same arrays, CTranslate2's
# fp32 greedy translation of every test sentence is nmt's, and its per-token log-probabilities are
# within 1e-4 of nmt's. Also the command's refusals (exit 2). Exits 77 (ctest: skipped) with the
# reason when .venv/ct2 cannot be made (scripts/peers/setup-venv.sh: no network to PyPI).
#
#   round_trip_test.sh NMT REFERENCE_TRANSLATIONS
set -euo pipefail
nmt=$1
reference=$2
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"  # nmt train points runs/latest at its run: keep that link here

fail() {
  echo "round_trip_test: $*" >&2
  exit 1
}

train() {
  local name=$1
  shift
  timeout 900 "$nmt" -q train --config "$source_dir/configs/quickstart.json" \
    --set "data.path=$source_dir/data/sample/en-es.tsv" --out "$scratch/$name" "$@" ||
    fail "training $name failed"
  timeout 300 "$nmt" -q export --format ctranslate2 --model "$scratch/$name" \
    --out "$scratch/$name.ct2" || fail "exporting $name failed"
  timeout 300 "$reference" "$scratch/$name" "$scratch/$name.jsonl" || fail "reference of $name"
}

steps=(--set train.max_steps=30 --set model.d_model=32 --set model.heads=2)
spm=(--set text.tokenizer=sentencepiece --set text.clean=normalize)
train quickstart
train post-tied "${steps[@]}" --set model.norm=post --set text.shared_vocab=true \
  --set model.share_embeddings=true --set model.tie_embeddings=true \
  --set model.scale_embeddings=true --set model.activation=gelu
train spm-pre "${steps[@]}" "${spm[@]}" --set text.vocab_size=400 \
  --set model.tie_embeddings=true --set model.scale_embeddings=true \
  --set model.encoder_layers=3 --set model.decoder_layers=1
train spm-post "${steps[@]}" "${spm[@]}" --set text.vocab_size=500 --set text.shared_vocab=true \
  --set model.norm=post --set model.share_embeddings=true
# Marian's (OPUS-MT's) options: swish, split sinusoids, scaled, shared and tied embeddings.
train spm-marian "${steps[@]}" "${spm[@]}" --set text.vocab_size=500 --set text.shared_vocab=true \
  --set model.norm=post --set model.share_embeddings=true --set model.tie_embeddings=true \
  --set model.scale_embeddings=true --set model.activation=swish --set model.positions=split

# What each export holds.
[[ -f spm-pre.ct2/spm.src.model && -f spm-pre.ct2/spm.tgt.model ]] || fail "spm-pre: no spm models"
[[ -f spm-post.ct2/spm.model && -f spm-post.ct2/shared_vocabulary.json ]] ||
  fail "spm-post: no shared spm model and vocabulary"
[[ -f quickstart.ct2/source_vocabulary.json && -f quickstart.ct2/target_vocabulary.json ]] ||
  fail "quickstart: no source and target vocabularies"

# Refusals: exit 2 with the reason, the earlier export untouched; --force replaces it.
before=$(md5sum < quickstart.ct2/model.bin)
set +e
output=$("$nmt" export --format ctranslate2 --model post-tied --out quickstart.ct2 2>&1)
status=$?
set -e
[[ $status -eq 2 && $output == *"is not empty; pass --force"* ]] ||
  fail "export into a non-empty directory: exit $status, $output"
[[ $(md5sum < quickstart.ct2/model.bin) == "$before" ]] || fail "a refused export changed model.bin"
set +e
output=$("$nmt" export --format onnx --model quickstart --out other 2>&1)
status=$?
set -e
[[ $status -eq 2 && $output == *"--format"* ]] || fail "--format onnx: exit $status, $output"
"$nmt" -q export --format ctranslate2 --model post-tied --out forced.ct2
"$nmt" -q export --format ctranslate2 --model quickstart --out forced.ct2 --force ||
  fail "--force over an earlier export"
[[ -f forced.ct2/source_vocabulary.json && ! -e forced.ct2/shared_vocabulary.json ]] ||
  fail "--force left the earlier export's files"

venv_log=$scratch/venv.log
if ! python=$(timeout 900 "$source_dir/scripts/peers/setup-venv.sh" ct2 2> "$venv_log"); then
  echo "SKIPPED: the CTranslate2 round trip needs .venv/ct2, which cannot be made here:"
  tail -n 3 "$venv_log"
  exit 77
fi
for name in quickstart post-tied spm-pre spm-post spm-marian; do
  timeout 600 "$python" "$source_dir/tests/export/round_trip.py" "$name.ct2" "$name.jsonl" ||
    fail "$name: CTranslate2 disagrees with nmt"
done
echo "round_trip_test: ok"
