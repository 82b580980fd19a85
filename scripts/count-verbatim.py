#!/usr/bin/env python3
"""Counts the spans a translation kept verbatim, for scripts/bench-copying.sh.

    scripts/count-verbatim.py TSV HYP > copy.json

TSV: source<TAB>category<TAB>span1|span2|... (scripts/copy-test-set.py writes one); HYP: the
translations, one line per TSV line. A span is kept when its hypothesis line contains it as
written (same case, both read in Unicode NFC) and not inside a longer word or number: the
character before and after it, where the span starts or ends with a letter or digit, is not one
(so "20" is not found in "2019", nor "Nagy" in "Nagyon"). Prints JSON:

    {"kept": K, "total": N, "by_category": {CATEGORY: {"kept": K, "total": N}, ...},
     "lost": [[source, span, hypothesis], ...]}
"""
import json
import sys
import unicodedata


def found(span, text):
    start = text.find(span)
    while start >= 0:
        end = start + len(span)
        before_ok = start == 0 or not (span[0].isalnum() and text[start - 1].isalnum())
        after_ok = end == len(text) or not (span[-1].isalnum() and text[end].isalnum())
        if before_ok and after_ok:
            return True
        start = text.find(span, start + 1)
    return False


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: scripts/count-verbatim.py TSV HYP")
    nfc = lambda text: unicodedata.normalize("NFC", text)
    with open(sys.argv[1], encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    with open(sys.argv[2], encoding="utf-8") as f:
        hyps = [line.rstrip("\n") for line in f]
    if len(hyps) != len(rows):
        sys.exit(f"count-verbatim: {sys.argv[1]} has {len(rows)} sentences, "
                 f"{sys.argv[2]} {len(hyps)} lines")
    result = {"kept": 0, "total": 0, "by_category": {}, "lost": []}
    for (source, category, spans), hyp in zip(rows, hyps):
        counts = result["by_category"].setdefault(category, {"kept": 0, "total": 0})
        for span in spans.split("|"):
            kept = found(nfc(span), nfc(hyp))
            for c in (result, counts):
                c["kept"] += kept
                c["total"] += 1
            if not kept:
                result["lost"].append([source, span, hyp])
    json.dump(result, sys.stdout, ensure_ascii=False, indent=1)
    print()


if __name__ == "__main__":
    main()
