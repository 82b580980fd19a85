#!/usr/bin/env python3
"""Holds an imported Marian model's outputs against transformers' (make_marian_fixture.py's
reference.json). Three commands:

    compare_marian.py translations REFERENCE_JSON GREEDY_OUT BEAM_OUT
        nmt's greedy and beam-4 translations (one per line, made with --max-len 19) must equal
        generate()'s texts. transformers was run with max_new_tokens 20, whose last step forces
        </s>: 19 tokens and the forced </s>, where nmt cuts at 19.
    compare_marian.py forced-input REFERENCE_JSON RUN OUT_JSONL
        writes forced_log_probs's input: each sentence's source ids and generate()'s greedy
        output, turned from Marian's ids into the run's (its marian.{src,tgt}.vocab).
    compare_marian.py log-probs REFERENCE_JSON NMT_JSONL
        forced_log_probs's output must be within 1e-4 of transformers' teacher-forced
        log-probabilities of the same tokens (greedy_log_probs), every token.

Prints one line per difference and a summary; exit 1 if there is any difference.
"""
import json
import sys
from pathlib import Path

TOLERANCE = 1e-4


def load_reference(path):
    return json.load(open(path, encoding="utf-8"))


def translations(reference_path, greedy_path, beam_path):
    sentences = load_reference(reference_path)["sentences"]
    failures = []
    for kind, path in (("greedy", greedy_path), ("beam", beam_path)):
        ours = open(path, encoding="utf-8").read().split("\n")[: len(sentences)]
        if len(ours) != len(sentences):
            failures.append(f"{kind}: {len(ours)} translations for {len(sentences)} sentences")
            continue
        for sentence, text in zip(sentences, ours):
            if text != sentence[kind + "_text"]:
                failures.append(f"{kind}: {sentence['source']!r}: nmt {text!r}, "
                                f"transformers {sentence[kind + '_text']!r}")
    return failures, f"{2 * len(sentences) - len(failures)} of {2 * len(sentences)} translations"


def id_map(marian_vocab_path, run_vocab_path, reference):
    """Marian id -> the run's id, through the pieces: the run's ids 2 and 3 are </s> and <unk>."""
    marian = json.load(open(marian_vocab_path, encoding="utf-8"))
    run_pieces = open(run_vocab_path, encoding="utf-8").read().split("\n")
    run_ids = {piece: i for i, piece in enumerate(run_pieces) if i >= 4 and piece}
    run_ids["</s>"], run_ids["<unk>"] = 2, 3
    mapping = {marian_id: run_ids[piece] for piece, marian_id in marian.items() if piece in run_ids}
    if mapping.get(reference["eos_token_id"]) != 2:
        sys.exit(f"{marian_vocab_path}: </s> is not eos_token_id {reference['eos_token_id']}")
    return mapping


def forced_input(reference_path, run, out_path):
    reference = load_reference(reference_path)
    fixture, run = Path(reference_path).parent, Path(run)
    target_vocab = fixture / "target_vocab.json"
    source_ids = id_map(fixture / "vocab.json", run / "marian.src.vocab", reference)
    target_ids = id_map(target_vocab if target_vocab.exists() else fixture / "vocab.json",
                        run / "marian.tgt.vocab", reference)
    with open(out_path, "w", encoding="utf-8") as out:
        for sentence in reference["sentences"]:
            greedy = sentence["greedy_ids"]
            if greedy[-1] != reference["eos_token_id"]:
                sys.exit(f"{reference_path}: a greedy output without </s>: {greedy}")
            line = {"source": [source_ids[i] for i in sentence["source_ids"]],
                    "target": [target_ids[i] for i in greedy[:-1]]}
            out.write(json.dumps(line) + "\n")
    return [], f"{len(reference['sentences'])} sentences written"


def log_probs(reference_path, nmt_path):
    sentences = load_reference(reference_path)["sentences"]
    ours = [json.loads(line)["log_probs"] for line in open(nmt_path, encoding="utf-8")]
    if len(ours) != len(sentences):
        return [f"{len(ours)} results for {len(sentences)} sentences"], "no comparison"
    failures, tokens, largest = [], 0, 0.0
    for sentence, nmt in zip(sentences, ours):
        theirs = sentence["greedy_log_probs"]
        if len(nmt) != len(theirs):
            failures.append(f"{sentence['source']!r}: {len(nmt)} log-probabilities, "
                            f"transformers {len(theirs)}")
            continue
        for t, (a, b) in enumerate(zip(nmt, theirs)):
            tokens += 1
            largest = max(largest, abs(a - b))
            if abs(a - b) > TOLERANCE:
                failures.append(f"{sentence['source']!r} token {t}: nmt {a:.6f}, "
                                f"transformers {b:.6f}")
    return failures, f"{tokens} tokens, largest difference {largest:.2e} (tolerance {TOLERANCE})"


COMMANDS = {"translations": (translations, 3), "forced-input": (forced_input, 3),
            "log-probs": (log_probs, 2)}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    command, arity = COMMANDS[sys.argv[1]]
    if len(sys.argv) != arity + 2:
        sys.exit(__doc__)
    failures, summary = command(*sys.argv[2:])
    for failure in failures[:20]:
        print(failure)
    print(f"compare_marian {sys.argv[1]}: {summary}, {len(failures)} differences")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
