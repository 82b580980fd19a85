#!/usr/bin/env python3
"""Compares nmt's greedy translations of an imported Marian model with transformers' generate().

    compare_marian.py REFERENCE_JSON GREEDY_OUT

REFERENCE_JSON is what make_marian_fixture.py wrote (generate() with max_new_tokens 20, whose
last step forces </s>); GREEDY_OUT holds nmt's translations of the same sources, one per line,
made with --max-len 19 so that a sentence transformers cut at 20 tokens (19 and the forced </s>)
is cut where nmt cuts it. Prints one line per difference; exit 1 if there is any.

Beam search is not compared yet: on these random models transformers' beam prefers hypotheses
cut at the length limit, whose forced </s> adds 0 to their score, and stops on its own heuristic;
nmt's beam does neither.
"""
import json
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    reference = json.load(open(sys.argv[1], encoding="utf-8"))
    sentences = reference["sentences"]
    failures = []
    for kind, path in (("greedy", sys.argv[2]),):
        ours = open(path, encoding="utf-8").read().split("\n")[: len(sentences)]
        if len(ours) != len(sentences):
            failures.append(f"{kind}: {len(ours)} translations for {len(sentences)} sentences")
            continue
        for sentence, text in zip(sentences, ours):
            if text != sentence[kind + "_text"]:
                failures.append(f"{kind}: {sentence['source']!r}: nmt {text!r}, "
                                f"transformers {sentence[kind + '_text']!r}")
    for failure in failures:
        print(failure)
    print(f"compare_marian: {len(sentences) - len(failures)} of {len(sentences)} equal")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
