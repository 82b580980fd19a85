#!/usr/bin/env python3
"""Writes the summary table of a distillation record made by scripts/distil-experiment.sh:
scores of every model and the ensemble, by source length, training compute, speed and size, and
issue 68's two targets checked against them.

    python3 scripts/distil-summary.py RECORD_DIR > RECORD_DIR/summary.md
"""
import glob
import json
import os
import statistics
import sys

FIXED = {
    "ensemble": "ensemble of the teachers",
    "student": "student, the teachers' shape",
    "student-6-1": "student, 6 encoder + 1 decoder layers",
    "baseline": "fair baseline: the teachers' config on the references",
}


def arms_of(record):
    """The teachers (teacher-SEED, by seed), then the ensemble, the students and the baseline."""
    seeds = sorted(int(os.path.basename(p)[len("eval-teacher-"):-len(".json")])
                   for p in glob.glob(os.path.join(record, "eval-teacher-*.json"))
                   if not p.endswith("-short.json"))
    return [f"teacher-{seed}" for seed in seeds] + list(FIXED)


def what(arm):
    return FIXED.get(arm) or f"teacher, seed {arm[len('teacher-'):]}"


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def training(record, arm):
    """(updates, epochs, training minutes) from the arm's metrics.jsonl."""
    path = os.path.join(record, f"{arm}.metrics.jsonl")
    if not os.path.exists(path):
        return None
    step = epoch = seconds = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            event = json.loads(line)
            step = max(step, event.get("step", 0))
            if event.get("event") == "epoch":
                epoch = event["epoch"]
            seconds = max(seconds, event.get("train_seconds", 0))
    return step, epoch, seconds / 60


def size_mib(record, arm):
    path = os.path.join(record, f"size-{arm}.txt")
    if not os.path.exists(path):
        return None
    sizes = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            name, size = line.rsplit(" ", 1)
            sizes[os.path.basename(name)] = int(size)
    for pick in ("averaged.pt", "best.pt", "checkpoint.pt"):
        if pick in sizes:
            return pick, sizes[pick] / 2**20
    return None


def read(record, name):
    with open(os.path.join(record, name), encoding="utf-8") as f:
        return f.read().strip()


def fmt(value, digits=2):
    return "–" if value is None else f"{value:.{digits}f}"


def scores_table(record):
    ranges = None
    rows = []
    for arm in arms_of(record):
        full = load(os.path.join(record, f"eval-{arm}.json"))
        short = load(os.path.join(record, f"eval-{arm}-short.json"))
        ranges = [r["words"] for r in full["by_source_length"]]
        by_length = [fmt(r["bleu"]) for r in full["by_source_length"]]
        rows.append([what(arm), fmt(short["bleu"]["score"]), fmt(short["chrf"]["score"]),
                     fmt(full["bleu"]["score"]), fmt(full["chrf"]["score"])] + by_length)
    counts = [str(r["sentences"]) for r in full["by_source_length"]]
    head = ["model", "BLEU ≤15 words", "chrF ≤15 words", "BLEU all", "chrF all"] + \
        [f"BLEU {w} words ({n})" for w, n in zip(ranges, counts)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def scoring(record):
    """How the models were scored: nmt eval's flags (scoring.txt), int8 on the CPU before it."""
    path = os.path.join(record, "scoring.txt")
    return f"nmt eval {read(record, 'scoring.txt')}" if os.path.exists(path) else "beam 5, int8"


def score(record, arm, part):
    suffix = "-short" if part == "short" else ""
    return load(os.path.join(record, f"eval-{arm}{suffix}.json"))["bleu"]["score"]


def speed(record):
    bench = {}
    for path in sorted(glob.glob(os.path.join(record, "bench-*-*.json"))):
        arm = os.path.basename(path)[len("bench-"):].rsplit("-", 1)[0]
        bench.setdefault(arm, []).append(load(path)["sentences_per_s"])
    whole = {}
    for path in sorted(glob.glob(os.path.join(record, "whole-*-*.time"))):
        arm = os.path.basename(path)[len("whole-"):].rsplit("-", 1)[0]
        with open(path, encoding="utf-8") as f:
            whole.setdefault(arm, []).append(float(f.read().split()[0]))
    return bench, whole


def main():
    record = sys.argv[1]
    out = ["# Distillation at equal compute: summary", ""]
    with open(os.path.join(record, "machine.txt"), encoding="utf-8") as f:
        out += ["```", f.read().strip(), "```", ""]
    out += ["## Training", "", "| model | updates | epochs | training minutes | checkpoint |",
            "|---|---:|---:|---:|---|"]
    for arm in arms_of(record):
        trained = training(record, arm)
        size = size_mib(record, arm)
        if trained:
            out.append(f"| {what(arm)} | {trained[0]} | {trained[1]} | {trained[2]:.1f} | "
                       + (f"{size[0]} {size[1]:.1f} MiB" if size else "–") + " |")
    distil = load(os.path.join(record, "distil.json"))
    out += ["", "Distilled corpus (distil.json): " + json.dumps(distil.get("corpus", {})),
            "", f"## Scores ({scoring(record)}; the test set keeps long sentences)", "",
            f"Test set: {read(record, 'test-set-lines.txt')} pairs cut with long sentences kept; "
            f"its part with at most 15 words a side: {read(record, 'short-lines.txt')} pairs.", "",
            scores_table(record), ""]
    bench, whole = speed(record)
    out += ["## Speed (int8, beam 5, both cores, rounds alternating)", "",
            "| model | decode alone, sentences/s per round | median "
            "| whole process, seconds per round | median |",
            "|---|---|---:|---|---:|"]
    first_teacher = arms_of(record)[0]
    for arm in [first_teacher, "ensemble", "student-6-1"]:
        b, w = bench.get(arm, []), whole.get(arm, [])
        out.append(f"| {what(arm)} | {', '.join(f'{x:.1f}' for x in b) or '–'} | "
                   f"{fmt(statistics.median(b), 1) if b else '–'} | "
                   f"{', '.join(f'{x:.2f}' for x in w) or '–'} | "
                   f"{fmt(statistics.median(w)) if w else '–'} |")
    out += ["", "## Issue 68's targets", ""]
    parts = (("short", "≤15 words (the recipe's filter)"), ("all", "all, long sentences kept"))
    for part, name in parts:
        gain = score(record, "student", part) - score(record, "baseline", part)
        gap = score(record, "student-6-1", part) - score(record, "ensemble", part)
        out.append(f"- test set {name}: student − baseline = {gain:+.2f} BLEU (target ≥ +1.0); "
                   f"6+1 student − ensemble = {gap:+.2f} BLEU (target ≥ −1.0)")
    if bench.get(first_teacher) and bench.get("student-6-1"):
        ratios = [s / t for s, t in zip(bench["student-6-1"], bench[first_teacher])]
        out.append("- 6+1 student / teacher, decode alone, per round: "
                   + ", ".join(f"{r:.2f}x" for r in ratios)
                   + f"; median {statistics.median(ratios):.2f}x (target ≥ 1.8x)")
    print("\n".join(out))


if __name__ == "__main__":
    main()
