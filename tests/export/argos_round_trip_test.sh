#!/usr/bin/env bash
# nmt export --format argos, checked by Argos Translate and LibreTranslate themselves
# (tests/export/argos_round_trip.py, LibreTranslate 1.9.6 and its argostranslate from .venv/argos)
# on two short runs of the sample corpus:
#
#   recipe     configs/tatoeba-en-es.json's model at a smaller size: pre-norm, one unigram
#              SentencePiece vocabulary, shared + tied + scaled embeddings; its languages from
#              the config (en, es)
#   post-bpe   post-norm, gelu, a BPE SentencePiece model; its languages from --source-lang and
#              --target-lang
#
# For each: argostranslate installs the package and translates every test and validation
# sentence as `nmt translate --strategy beam --beam-size 4 --length-penalty 0.2 --max-len 256`
# does (Argos's decoding), but for at most one line in twenty, where the beams of these briefly
# trained models tie closely enough for the two libraries' rounding to part them; for recipe also a LibreTranslate server on loopback serving the package
# answers every sentence as `nmt serve` with that decoding does, up to LibreTranslate's own
# formatting of answers. Also
# the archive's layout, the command's refusals (exit 2, exact messages, nothing written) and
# --force. Exits 77 (ctest: skipped) with the reason when .venv/argos cannot be made, after the
# refusals.
#
#   argos_round_trip_test.sh NMT
set -euo pipefail
nmt=$1
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
server=""
trap '[[ -z $server ]] || kill $server 2> /dev/null || true; rm -rf "$scratch"' EXIT
cd "$scratch"  # nmt train points runs/latest at its run: keep that link here

fail() {
  echo "argos_round_trip_test: $*" >&2
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

# Argos's decoding: CTranslate2's beam search with 4 beams, length penalty 0.2 and its default
# limit of 256 output tokens.
argos_decoding=(--strategy beam --beam-size 4 --length-penalty 0.2 --max-len 256 --precision fp32)

recipe=(--config "$source_dir/configs/tatoeba-en-es.json" --set model.d_model=64
  --set model.layers=2 --set text.vocab_size=500 --set train.average_last=0)
train recipe "${recipe[@]}"
"$nmt" -q export --format argos --model recipe --out recipe.argosmodel || fail "exporting recipe"
train post-bpe "${recipe[@]}" --set model.norm=post --set model.activation=gelu \
  --set text.model_type=bpe --set data.source_lang= --set data.target_lang=
"$nmt" -q export --format argos --model post-bpe --out post-bpe.argosmodel --source-lang en \
  --target-lang es --package-version 1.2 || fail "exporting post-bpe"

# The archive: one directory named as argospm names packages, the files Argos reads.
python3 - recipe.argosmodel post-bpe.argosmodel <<'PYTHON' || fail "the archives' layout"
import json, sys, zipfile
for path, top in zip(sys.argv[1:], ("translate-en_es-1_0/", "translate-en_es-1_2/")):
    with zipfile.ZipFile(path) as archive:
        assert archive.testzip() is None, path
        names = archive.namelist()
        assert all(name.startswith(top) for name in names), names
        for name in ("metadata.json", "sentencepiece.model", "README.md", "model/model.bin",
                     "model/config.json", "model/shared_vocabulary.json"):
            assert top + name in names, (path, name, names)
        metadata = json.loads(archive.read(top + "metadata.json"))
        assert metadata["from_code"] == "en" and metadata["from_name"] == "English", metadata
        assert metadata["to_code"] == "es" and metadata["to_name"] == "Spanish", metadata
        assert metadata["package_version"] == top[-4:-1].replace("_", "."), metadata
PYTHON

# Refusals: exit 2 with the reason, nothing written.
train words --config "$source_dir/configs/quickstart.json" --set train.max_steps=20
expect_refusal "a word-vocabulary run" "words: cannot export to Argos Translate: it has word \
vocabularies (text.tokenizer \"word\"), and an Argos package tokenizes with one SentencePiece \
model; train with text.tokenizer \"sentencepiece\"" words.argosmodel \
  "$nmt" export --format argos --model words --out words.argosmodel
train separate "${recipe[@]}" --set text.shared_vocab=false --set model.share_embeddings=false \
  --set train.max_steps=20
expect_refusal "separate vocabularies" "separate: cannot export to Argos Translate: it has \
separate vocabularies (text.shared_vocab false), and an Argos package tokenizes both languages \
with one SentencePiece model; train with text.shared_vocab true" separate.argosmodel \
  "$nmt" export --format argos --model separate --out separate.argosmodel
cp -r recipe notebook
sed -i 's/"clean": "normalize"/"clean": "notebook"/' notebook/config.json
expect_refusal "text.clean notebook" "notebook: cannot export to Argos Translate: its text.clean \
is \"notebook\", nmt's own cleaning, which Argos does not apply; train with text.clean \
\"normalize\"" notebook.argosmodel \
  "$nmt" export --format argos --model notebook --out notebook.argosmodel
expect_refusal "no language code" "post-bpe: cannot export to Argos Translate: the run records \
no source language (data.source_lang) and --source-lang gives none; pass --source-lang, e.g. \
--source-lang en" nolang.argosmodel "$nmt" export --format argos --model post-bpe \
  --out nolang.argosmodel
expect_refusal "a bad language code" "--target-lang: \"es/x\" is not a language code (ISO 639 \
letters, as \"en\", with an optional region after '-', as \"pt-BR\")" badlang.argosmodel \
  "$nmt" export --format argos --model recipe --out badlang.argosmodel --target-lang es/x
expect_refusal "a bad version" "--package-version: \"1.x\" is not a version of numbers and dots, \
as \"1.0\", which Argos compares to choose updates" badversion.argosmodel \
  "$nmt" export --format argos --model recipe --out badversion.argosmodel --package-version 1.x
expect_refusal "another extension" "--out: recipe.zip does not end in .argosmodel, the extension \
argospm and LibreTranslate install packages from" recipe.zip \
  "$nmt" export --format argos --model recipe --out recipe.zip
expect_refusal "an ensemble" "--model was given 2 times: an ensemble translates as several \
models and exports as none; export each run on its own" ensemble.argosmodel \
  "$nmt" export --format argos --model recipe --model post-bpe --out ensemble.argosmodel
before=$(md5sum < recipe.argosmodel)
set +e
output=$("$nmt" export --format argos --model post-bpe --out recipe.argosmodel 2>&1)
status=$?
set -e
[[ $status -eq 2 && $output == *"--out: recipe.argosmodel exists; pass --force to replace it"* ]] ||
  fail "export over an existing file: exit $status, $output"
[[ $(md5sum < recipe.argosmodel) == "$before" ]] || fail "a refused export changed it"
cp post-bpe.argosmodel forced.argosmodel
"$nmt" -q export --format argos --model recipe --out forced.argosmodel --force ||
  fail "--force over an earlier export"
python3 -c 'import sys, zipfile
model = [zipfile.ZipFile(path).read("translate-en_es-1_0/model/model.bin") for path in sys.argv[1:]]
sys.exit(model[0] != model[1])' forced.argosmodel recipe.argosmodel ||
  fail "--force wrote another package"

if ! python=$(timeout 900 "$source_dir/scripts/peers/setup-venv.sh" argos 2> venv.log); then
  echo "SKIPPED: the Argos round trip needs .venv/argos, which cannot be made here:"
  tail -n 3 venv.log
  exit 77
fi
cut -f1 recipe/test.tsv recipe/valid.tsv > sentences.src
for name in recipe post-bpe; do
  "$nmt" -q translate --model "$name" "${argos_decoding[@]}" < sentences.src > "$name.nmt" ||
    fail "$name: translate failed"
done
timeout 600 "$python" "$source_dir/tests/export/argos_round_trip.py" post-bpe.argosmodel \
  sentences.src post-bpe.nmt || fail "post-bpe: Argos disagrees with nmt"

"$nmt" serve --model recipe --port 0 "${argos_decoding[@]}" > serve.log 2>&1 &
server=$!
port=$(nmt_serve_port serve.log $server)
timeout 600 "$python" "$source_dir/tests/export/argos_round_trip.py" recipe.argosmodel \
  sentences.src recipe.nmt "http://127.0.0.1:$port" || fail "recipe: Argos disagrees with nmt"
echo "argos_round_trip_test: ok"
