#!/usr/bin/env bash
# Cuts a test set out of a corpus before any filter, long sentences included, to be named as
# data.test of the runs that train on that corpus: with data.group_by_source (the default) nmt then
# drops from training every pair whose source sentence is in the test set, so the score is on
# sentences the model never saw, and a test set is never length-filtered.
#
#   scripts/cut-test-set.sh CORPUS.tsv[.gz] OUT.tsv
#   scripts/cut-test-set.sh SOURCE[.gz] TARGET[.gz] OUT.SOURCE OUT.TARGET    (aligned plain text)
#
# It picks source sentences, not pairs: a source with several translations goes to the test set
# with all of them, as nmt's own source-grouped split does. Sources are grouped by the notebook's
# clean_text, the key nmt's held-out filter compares ("Hello!" and "hello !" are one sentence), so
# no pair that training drops is missing from the test set. The pick is a hash of (SEED, source):
# the same corpus and seed give the same test set on any machine, and a sentence's fate does not
# depend on the rest of the corpus. The chosen lines are written unchanged, in corpus order.
#
# Environment: SENTENCES (source sentences to pick, 5000), LONG (additionally pick this many of the
# sources with more than 15 words, the notebook's length filter, so that BLEU by source length has
# long sentences to score; 0), SEED (23), REVERSE=1 (the second column or TARGET file is the source,
# as with data.reverse). TSV lines: 2-3 columns (manythings/Anki) or 4 (Tatoeba export), like nmt.
set -euo pipefail
if [[ $# -ne 2 && $# -ne 4 ]]; then
  echo "usage: scripts/cut-test-set.sh CORPUS.tsv[.gz] OUT.tsv" >&2
  echo "       scripts/cut-test-set.sh SOURCE TARGET OUT.SOURCE OUT.TARGET" >&2
  exit 2
fi
exec python3 - "$@" <<'PY'
import gzip, hashlib, os, re, sys

sentences = int(os.environ.get("SENTENCES", "5000"))
long_sentences = int(os.environ.get("LONG", "0"))
seed = os.environ.get("SEED", "23")
reverse = os.environ.get("REVERSE", "0") == "1"
LONG_WORDS = 15


def clean_text(text):  # the notebook's (../shared/reference/seed_transformer.py), as nmt's held-out key
    text = text.lower()
    text = re.sub(r"([¿?¡!,])", r" \1 ", text)
    text = re.sub(r"[^a-zA-Z0-9áéíóúüñ¿?¡!,]+", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def lines(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="surrogateescape", newline="\n") as f:
            return [line.rstrip("\n").removesuffix("\r") for line in f]
    except OSError as error:
        sys.exit(f"cut-test-set: {path}: {error.strerror or error}")


def side(columns, second):
    if len(columns) == 4:
        return columns[3] if second else columns[1]
    if len(columns) in (2, 3):
        return columns[1] if second else columns[0]
    return None


if len(sys.argv) == 3:
    corpus, out = sys.argv[1], sys.argv[2:]
    rows = lines(corpus)
    sources = [side(row.split("\t"), reverse) for row in rows]
    described = corpus
else:
    source_path, target_path, out = sys.argv[1], sys.argv[2], sys.argv[3:]
    source_lines, target_lines = lines(source_path), lines(target_path)
    if len(source_lines) != len(target_lines):
        sys.exit(f"cut-test-set: {source_path} has {len(source_lines)} lines but {target_path} "
                 f"has {len(target_lines)}")
    rows = list(zip(source_lines, target_lines))
    sources = [target if reverse else source for source, target in rows]
    described = f"{source_path} + {target_path}"

groups = {}  # key -> line numbers, in corpus order
words = {}   # key -> whitespace words of its first source
for number, source in enumerate(sources):
    key = clean_text(source) if source and source.strip() else ""
    if not key:
        continue
    groups.setdefault(key, []).append(number)
    words.setdefault(key, len(source.split()))
if sentences + long_sentences > len(groups):
    sys.exit(f"cut-test-set: {described} has {len(groups)} distinct source sentences; "
             f"cannot pick {sentences + long_sentences}")

rank = lambda key: hashlib.sha256(f"{seed}\t{key}".encode("utf-8", "surrogateescape")).digest()
ordered = sorted(groups, key=rank)
chosen = set(ordered[:sentences])
long_keys = [key for key in ordered[sentences:] if words[key] > LONG_WORDS][:long_sentences]
if len(long_keys) < long_sentences:
    sys.exit(f"cut-test-set: only {len(long_keys)} more sources of more than {LONG_WORDS} words; "
             f"cannot pick LONG={long_sentences}")
chosen.update(long_keys)
picked = sorted(number for key in chosen for number in groups[key])

if len(out) == 1:
    outputs = [(out[0], [rows[n] for n in picked])]
else:
    outputs = [(out[0], [rows[n][0] for n in picked]), (out[1], [rows[n][1] for n in picked])]
for path, text in outputs:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path + ".tmp", "wt", encoding="utf-8", errors="surrogateescape", newline="\n") as f:
        f.writelines(line + "\n" for line in text)
    os.replace(path + ".tmp", path)

counts = []  # pairs by whitespace words of the source, in nmt eval's ranges
for low, high in [(0, 5), (6, 10), (11, 15), (16, 30), (31, None)]:
    n = sum(1 for m in picked if low <= len(sources[m].split()) <= (high or len(sources[m].split())))
    counts.append(f"{low}-{high}: {n}" if high else f"{low}+: {n}")
print(f"cut {len(chosen)} source sentences, {len(picked)} pairs (source words {', '.join(counts)}) "
      f"out of {described} ({len(rows)} lines, {len(groups)} distinct sources) into {' + '.join(out)}")
print("name it as data.test next to the whole corpus as training data, with data.group_by_source "
      "true (the default): training then drops the pairs whose source it holds")
PY
