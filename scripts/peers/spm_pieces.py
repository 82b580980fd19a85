#!/usr/bin/env python3
"""The SentencePiece steps of fairseq's recipes for raw parallel text, as the fairseq side of
scripts/peers/bench-fairseq-preprocess.sh runs them (in .venv/fairseq, sentencepiece 0.2.0):

    spm_pieces.py train MODEL_PREFIX SAMPLE_SENTENCES VOCAB_SIZE FILE [FILE...]
        a shared unigram model of VOCAB_SIZE pieces on a seeded sample of SAMPLE_SENTENCES lines
        of the files (input_sentence_size), full character coverage, byte fallback, two threads
    spm_pieces.py encode MODEL IN OUT
        IN's lines as space-separated pieces into OUT, 100,000 lines at a time on two threads

Prints nothing on success; exit status 1 with the error otherwise.
"""
import sys

import sentencepiece as spm

THREADS = 2
ENCODE_LINES = 100_000


def train(prefix, sample, vocab_size, files):
    spm.SentencePieceTrainer.train(
        input=files, model_prefix=prefix, model_type="unigram", vocab_size=int(vocab_size),
        input_sentence_size=int(sample), shuffle_input_sentence=True, character_coverage=1.0,
        byte_fallback=True, num_threads=THREADS, minloglevel=2)


def encode(model, source, target):
    processor = spm.SentencePieceProcessor(model_file=model)
    with open(source, encoding="utf-8", errors="replace") as lines, \
            open(target, "w", encoding="utf-8") as out:
        batch = []
        for line in lines:
            batch.append(line.rstrip("\n"))
            if len(batch) == ENCODE_LINES:
                write_pieces(processor, batch, out)
                batch = []
        write_pieces(processor, batch, out)


def write_pieces(processor, batch, out):
    if batch:
        pieces = processor.encode(batch, out_type=str, num_threads=THREADS)
        out.write("".join(" ".join(line) + "\n" for line in pieces))


def main():
    if len(sys.argv) >= 6 and sys.argv[1] == "train":
        train(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif len(sys.argv) == 5 and sys.argv[1] == "encode":
        encode(*sys.argv[2:])
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
