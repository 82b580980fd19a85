#!/usr/bin/env python3
"""Makes a large synthetic English-Spanish corpus of any size, for tests and benchmarks of
`nmt prepare` and `nmt train` at OPUS scale (3M, 10M, 30M pairs), from the bundled Tatoeba pairs.

    scripts/make-large-corpus.py --pairs 10M --source big.en --target big.es
    scripts/make-large-corpus.py --pairs 3M --tsv big.tsv.gz --seed 7

Each output line is 1 to --max-join (default 3) Tatoeba pairs drawn at random, with replacement,
and joined with a space on each side in the same order, so the English line still translates the
Spanish one, and lines run from one short sentence to several long ones (13 English words on
average, up to about 60), like a real corpus with long lines. The join count is drawn uniformly
from 1..--max-join.

Input: data/tatoeba-en-es/eng-spa.tsv.gz, or any TSV given with --from PATH (gzip or plain),
read line by line with the layouts nmt reads (data.format auto): 2 columns (source, target),
3 (source, target, attribution: manythings.org's Anki files) or 4 (the Tatoeba export: id,
source, id, target). Other lines, lines with an empty side and invalid UTF-8 are skipped.

Output: two aligned plain-text files, one sentence per line (--source OUT.en --target OUT.es),
or one TSV file, source<TAB>target (--tsv OUT.tsv); a name ending in .gz is written
gzip-compressed (level 1, for speed). The same arguments give the same bytes, .gz files included
(their header holds no time stamp and no file name); the TSV form holds the same lines as the
two-file form with the same --pairs, --seed and --max-join. --pairs takes a plain number or one
with a k or M suffix: 2000, 500k, 3M, 1.5M.

Memory stays bounded whatever --pairs is: the script holds the input pairs (110k for the bundled
file) and one chunk of output lines, never the output (40 MB resident). 1M pairs (136 MB of
text) took 2.3 s on one core, gzip-compressed about twice that, so 30M pairs take a minute or
two. stdout stays empty; stderr gets a progress line every 1M pairs and a final line
`wrote N pairs (X MB) in Y s`.

To train on the two-file form, list the files under data.train (docs/corpora.md):

    {"data": {"train": [{"source": "big.en", "target": "big.es"}],
              "source_lang": "en", "target_lang": "es"}}

then `nmt prepare --config big.json --out runs/big` (or `nmt train`). The TSV form can instead
be given to any configuration with `--data big.tsv.gz`.

Exit status 2, with a message naming the file, for a missing or unreadable input, an input with
no usable pair, a bad --pairs value or an output that cannot be written.
"""
import argparse
import decimal
import gzip
import itertools
import os
import random
import re
import sys
import time

DEFAULT_INPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                             "data", "tatoeba-en-es", "eng-spa.tsv.gz")

# Lines drawn and written at a time. The draws of a chunk are made together (join counts, then
# sentences), so this number is part of what the output is: changing it changes the bytes.
CHUNK_LINES = 10_000
PROGRESS_EVERY = 1_000_000  # a multiple of CHUNK_LINES, so progress lands on chunk boundaries

# Where source and target sit in a line, by its number of tab-separated columns.
COLUMNS_BY_LAYOUT = {2: (0, 1), 3: (0, 1), 4: (1, 3)}

SUFFIXES = {"": 1, "k": 1_000, "m": 1_000_000}


class UsageError(Exception):
    """A problem with the arguments or the files: reported in one line, exit status 2."""


def parse_pair_count(text):
    """'2000', '500k', '3M', '1.5M' -> a positive whole number of pairs."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of pairs (examples: 2000, 500k, 3M, 1.5M)")
    # Decimal, not float, so that 1.1M is exactly 1100000 pairs.
    count = decimal.Decimal(match.group(1)) * SUFFIXES[match.group(2).lower()]
    if count != count.to_integral_value() or count < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number of pairs")
    return int(count)


def parse_max_join(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 1 or more")
    return value


def open_for_reading(path):
    """A binary stream of the file's text: gzip by its magic bytes, not by its name."""
    try:
        raw = open(path, "rb")
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror}") from None
    if raw.peek(2)[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    return raw


def pair_from_line(raw_line):
    """(source, target) of one TSV line, or None for a line nmt would skip too."""
    try:
        line = raw_line.decode("utf-8")
    except UnicodeDecodeError:
        return None
    columns = line.rstrip("\r\n").split("\t")
    layout = COLUMNS_BY_LAYOUT.get(len(columns))
    if layout is None:
        return None
    source, target = (columns[index].strip() for index in layout)
    if not source or not target:
        return None
    return source, target


def read_pairs(path):
    """The usable pairs of the input, as two parallel lists (sources, targets)."""
    sources, targets = [], []
    with open_for_reading(path) as stream:
        try:
            for raw_line in stream:
                pair = pair_from_line(raw_line)
                if pair is not None:
                    sources.append(pair[0])
                    targets.append(pair[1])
        except (OSError, EOFError) as error:  # a damaged or truncated .gz
            raise UsageError(f"{path}: cannot read: {error}") from None
    if not sources:
        raise UsageError(f"{path}: no usable sentence pair (expected 2, 3 or 4 tab-separated "
                         f"columns with text on both sides)")
    return sources, targets


def open_for_writing(path):
    """(file, stream to write to): the stream is the file itself, or for a .gz name a gzip
    level 1 layer on it with a fixed header (no time stamp, no file name) so that the same
    arguments give the same bytes."""
    try:
        file = open(path, "wb", buffering=1 << 20)
    except OSError as error:
        raise UsageError(f"{path}: cannot write: {error.strerror}") from None
    if path.endswith(".gz"):
        return file, gzip.GzipFile(filename="", mode="wb", fileobj=file, compresslevel=1, mtime=0)
    return file, file


class Output:
    """Where the lines go: two aligned files, or one TSV file."""

    def __init__(self, source_path=None, target_path=None, tsv_path=None):
        self.paths = [tsv_path] if tsv_path else [source_path, target_path]
        self.files, self.streams = [], []
        for path in self.paths:
            file, stream = open_for_writing(path)
            self.files.append(file)
            self.streams.append(stream)

    def write(self, source_text, target_text):
        """source_text and target_text: the same number of whole lines, each ending in '\\n'."""
        if len(self.streams) == 2:
            self.streams[0].write(source_text.encode("utf-8"))
            self.streams[1].write(target_text.encode("utf-8"))
        else:
            # split("\n"), not splitlines(), which would also split at U+2028 and the like
            # inside a sentence. Both texts end in "\n": drop the empty piece after it.
            source_lines = source_text.split("\n")[:-1]
            target_lines = target_text.split("\n")[:-1]
            tsv_lines = map("\t".join, zip(source_lines, target_lines))
            self.streams[0].write(("\n".join(tsv_lines) + "\n").encode("utf-8"))

    def close(self):
        # Streams first, so gzip writes its trailer; then the files, which GzipFile leaves open.
        for stream in self.streams + self.files:
            stream.close()

    def size_in_bytes(self):
        return sum(os.path.getsize(path) for path in self.paths)


def separator_runs(max_join):
    """For each join count c, what follows each of its c sentences: c-1 spaces, then the end of
    the line."""
    return [None] + [(" ",) * (count - 1) + ("\n",) for count in range(1, max_join + 1)]


def draw_chunk(rng, sources, targets, line_count, max_join, runs):
    """line_count lines of joined pairs, as (source text, target text).

    All draws of the chunk are two rng.choices calls (floor(random() * n) per pick, cheaper than
    a randint per pick), and the joining runs in C (map, zip, chain, join) rather than in a
    Python loop per line, to keep 30M lines near a minute.
    """
    join_counts = rng.choices(range(1, max_join + 1), k=line_count)
    picks = rng.choices(range(len(sources)), k=sum(join_counts))
    separators = list(itertools.chain.from_iterable(map(runs.__getitem__, join_counts)))
    source_text = "".join(itertools.chain.from_iterable(
        zip(map(sources.__getitem__, picks), separators)))
    target_text = "".join(itertools.chain.from_iterable(
        zip(map(targets.__getitem__, picks), separators)))
    return source_text, target_text


def write_corpus(output, sources, targets, pair_count, seed, max_join):
    rng = random.Random(seed)
    runs = separator_runs(max_join)
    written = 0
    while written < pair_count:
        line_count = min(CHUNK_LINES, pair_count - written)
        output.write(*draw_chunk(rng, sources, targets, line_count, max_join, runs))
        written += line_count
        if written % PROGRESS_EVERY == 0 and written < pair_count:
            print(f"  {written} / {pair_count} pairs", file=sys.stderr, flush=True)


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        description="Makes a large synthetic English-Spanish corpus from Tatoeba pairs "
                    "(see the top of this script for details).")
    parser.add_argument("--pairs", type=parse_pair_count, required=True,
                        help="lines to write: 2000, 500k, 3M, 1.5M")
    parser.add_argument("--source", help="aligned output, source side (.gz: compressed)")
    parser.add_argument("--target", help="aligned output, target side (.gz: compressed)")
    parser.add_argument("--tsv", help="one TSV output, source<TAB>target, instead")
    parser.add_argument("--from", dest="input", default=DEFAULT_INPUT,
                        help="input TSV (2, 3 or 4 columns; default: the bundled Tatoeba file)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--max-join", type=parse_max_join, default=3,
                        help="most input pairs joined into one line (default 3)")
    arguments = parser.parse_args(argv)
    if arguments.tsv and (arguments.source or arguments.target):
        parser.error("give either --tsv or --source and --target, not both")
    if not arguments.tsv and not (arguments.source and arguments.target):
        parser.error("give --source and --target, or --tsv")
    return arguments


def main(argv):
    arguments = parse_arguments(argv)
    started = time.perf_counter()
    try:
        sources, targets = read_pairs(arguments.input)
        output = Output(arguments.source, arguments.target, arguments.tsv)
        try:
            write_corpus(output, sources, targets, arguments.pairs, arguments.seed,
                         arguments.max_join)
            output.close()
        except OSError as error:  # a full disk, say: name the files rather than a traceback
            raise UsageError(f"{' and '.join(output.paths)}: cannot write: {error}") from None
    except UsageError as error:
        print(f"make-large-corpus.py: error: {error}", file=sys.stderr)
        return 2
    megabytes = output.size_in_bytes() / 1e6
    seconds = time.perf_counter() - started
    print(f"wrote {arguments.pairs} pairs ({megabytes:.1f} MB) in {seconds:.1f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
