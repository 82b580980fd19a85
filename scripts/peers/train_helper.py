#!/usr/bin/env python3
"""Data, batching, scoring and table steps of scripts/peers/bench-train.sh.

Runs in .venv/score (sacreBLEU and sentencepiece from PyPI, pinned in requirements-score.txt);
the peers' own environments never run it, so every tool is fed and scored by the same code.

  pieces    SPLIT OUT      the split's TSVs -> raw and SentencePiece-piece files + peer vocabularies
  calibrate PIECES OUT     each peer's token batch size giving nmt's real target tokens per update
  detok     MODEL IN OUT   pieces (one sentence a line) -> text, with the same SentencePiece model
  score     HYP REF OUT    sacreBLEU BLEU and chrF (defaults: 13a, chrF c6 w0) -> JSON
  steps     LOG OUT        throughput from a per-step log of scripts/peers/peer_train.py
  marian-steps LOG OUT     throughput from Marian's training log
  marian-end PROGRESS      updates of a Marian run, from its model.npz.progress.yml
  merge     OUT            JSON files and KEY=VALUE pairs -> one JSON object (result records)
  nmt-end   METRICS        updates and training seconds of an nmt run, from its metrics.jsonl
  table     RECORD         RECORD/meta.json + RECORD/results/*.json -> RECORD/training.md
"""
import argparse
import json
import math
import random
import re
import sys
from pathlib import Path

SPLITS = ("train", "valid", "test")
# nmt's SentencePiece models put <PAD>, <SOS>, <EOS>, <UNK> at ids 0-3 (src/text/
# sentencepiece_tokenizer.cpp); every peer brings its own four specials, so its vocabulary file
# holds the remaining pieces, in the model's order: the same 8,000 entries in all. Marian has
# two (</s> and <unk>, which its text vocabularies must hold; no <s>, and it pads with </s>).
NMT_SPECIALS = 4
MARIAN_SPECIALS = ("</s>", "<unk>")


def read_tsv(path):
    pairs = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 2:
                sys.exit(f"{path}:{n}: expected source<TAB>target")
            pairs.append((fields[0], fields[1]))
    return pairs


def load_spm(model):
    import sentencepiece as spm

    processor = spm.SentencePieceProcessor()
    processor.Load(str(model))
    return processor


def find_model(split_dir):
    models = sorted(Path(split_dir).glob("spm*.model"))
    if len(models) != 1:
        sys.exit(f"train_helper: expected one shared spm*.model in {split_dir}, found "
                 f"{[m.name for m in models]} (text.shared_vocab must be true)")
    return models[0]


def cmd_pieces(args):
    split, out = Path(args.split), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model = find_model(split)
    processor = load_spm(model)
    pieces = [processor.IdToPiece(i) for i in range(processor.GetPieceSize())]
    spaced = [p for p in pieces[NMT_SPECIALS:] if p != p.strip() or len(p.split()) != 1]
    if spaced:
        sys.exit(f"train_helper: pieces containing white space cannot be written as "
                 f"space-separated tokens: {spaced[:5]}")
    report = {"model": str(model), "vocab_size": len(pieces),
              "specials": pieces[:NMT_SPECIALS], "splits": {}}
    vocab = "".join(p + "\n" for p in pieces[NMT_SPECIALS:])
    (out / "vocab.txt").write_text(vocab, encoding="utf-8")
    (out / "vocab.marian.txt").write_text(
        "".join(s + "\n" for s in MARIAN_SPECIALS) + vocab, encoding="utf-8")
    for name in SPLITS:
        pairs = read_tsv(split / f"{name}.tsv")
        counts = {"pairs": len(pairs), "src_pieces": 0, "tgt_pieces": 0}
        for side, index in (("src", 0), ("tgt", 1)):
            texts = [pair[index] for pair in pairs]
            encoded = [processor.EncodeAsPieces(t) for t in texts]
            counts[f"{side}_pieces"] = sum(len(e) for e in encoded)
            (out / f"{name}.{side}").write_text("".join(t + "\n" for t in texts), encoding="utf-8")
            (out / f"{name}.sp.{side}").write_text(
                "".join(" ".join(e) + "\n" for e in encoded), encoding="utf-8")
        report["splits"][name] = counts
    (out / "pieces.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report))


# --- Batching rules, as each tool cuts its training batches (read from their sources). ---

def lengths(pieces_dir):
    def counts(path):
        with open(path, encoding="utf-8") as f:
            return [len(line.split()) for line in f]

    src = counts(Path(pieces_dir) / "train.sp.src")
    tgt = counts(Path(pieces_dir) / "train.sp.tgt")
    with open(Path(pieces_dir) / "train.sp.src", encoding="utf-8") as f:
        sources = [line.rstrip("\n") for line in f]
    return src, tgt, sources


def batches_nmt(src, tgt, max_tokens, seed=23):
    """src/data/batch_plan.cpp: sort by (target, source) length, cut when rows x longest (target+1)
    would exceed max_tokens. Returns real target tokens (target+1: y and <EOS>) per batch."""
    order = list(range(len(tgt)))
    random.Random(seed).shuffle(order)
    order.sort(key=lambda i: (tgt[i], src[i]))
    sizes, rows, longest, real = [], 0, 0, 0
    for i in order:
        length = tgt[i] + 1
        if rows and (rows + 1) * max(longest, length) > max_tokens:
            sizes.append(real)
            rows, longest, real = 0, 0, 0
        rows, longest, real = rows + 1, max(longest, length), real + length
    if rows:
        sizes.append(real)
    return sizes, 0


def batches_onmt(src, tgt, sources, batch_size):
    """OpenNMT-py 3.5 (onmt/inputters/dynamic_iterator.py) with bucket_size = the number of pairs,
    as onmt-tatoeba.yaml sets it: one bucket is one epoch in file order, sorted by (source,
    target) length; a batch grows until rows x max(source, target+2) (<s> and </s> counted)
    reaches batch_size (an example that overshoots it starts the next batch); an example whose
    source text is already in the batch is dropped. Returns real target tokens (target+1) per
    batch, and the number of pairs dropped."""
    bucket_size = len(tgt)
    sizes, dropped = [], 0
    for start in range(0, len(tgt), bucket_size):
        bucket = sorted(range(start, min(len(tgt), start + bucket_size)),
                        key=lambda i: (src[i], tgt[i] + 2))
        batch, maxlen, seen = [], 0, set()
        for i in bucket:
            if sources[i] in seen:
                dropped += 1
                continue
            seen.add(sources[i])
            batch.append(i)
            maxlen = max(maxlen, src[i], tgt[i] + 2)
            if len(batch) * maxlen >= batch_size:
                if len(batch) * maxlen > batch_size and len(batch) > 1:
                    last = batch.pop()
                    sizes.append(sum(tgt[j] + 1 for j in batch))
                    batch, maxlen, seen = [last], max(src[last], tgt[last] + 2), set()
                else:
                    sizes.append(sum(tgt[j] + 1 for j in batch))
                    batch, maxlen, seen = [], 0, set()
        if batch:
            sizes.append(sum(tgt[j] + 1 for j in batch))
    return sizes, dropped


def batches_joey(src, tgt, batch_size, seed=42):
    """JoeyNMT 2.3 (joeynmt/datasets.py TokenBatchSampler): examples in random order (no length
    bucketing), a batch ends once rows x max(source+1, target+1) reaches batch_size. Returns real
    target tokens (target+1) per batch."""
    order = list(range(len(tgt)))
    random.Random(seed).shuffle(order)
    sizes, rows, longest, real = [], 0, 0, 0
    for i in order:
        rows, longest, real = rows + 1, max(longest, src[i] + 1, tgt[i] + 1), real + tgt[i] + 1
        if rows * longest >= batch_size:
            sizes.append(real)
            rows, longest, real = 0, 0, 0
    if rows:
        sizes.append(real)
    return sizes, 0


def batches_marian(src, tgt, mini_batch_words, seed=23):
    """Marian 1.12 (src/data/batch_generator.h) with maxi-batch-sort trg and a maxi-batch holding
    the whole split, as marian-tatoeba.yml sets them: pairs sorted by (target, source) length; a
    batch closes once the sum of its real source lengths (with </s>) exceeds mini_batch_words, the
    pair that crossed the line included. Returns real target tokens (target + </s>) per batch."""
    order = list(range(len(tgt)))
    random.Random(seed).shuffle(order)
    order.sort(key=lambda i: (tgt[i], src[i]))
    sizes, words, real = [], 0, 0
    for i in order:
        words, real = words + src[i] + 1, real + tgt[i] + 1
        if words > mini_batch_words:
            sizes.append(real)
            words, real = 0, 0
    if real:
        sizes.append(real)
    return sizes, 0


def mean(values):
    return sum(values) / len(values) if values else 0.0


def solve(rule, target, low, high):
    """The smallest integer batch size whose mean real target tokens per batch reaches target."""
    while low < high:
        middle = (low + high) // 2
        if mean(rule(middle)[0]) < target:
            low = middle + 1
        else:
            high = middle
    return low


def cmd_calibrate(args):
    src, tgt, sources = lengths(args.pieces)
    nmt, _ = batches_nmt(src, tgt, args.max_tokens)
    target = mean(nmt)
    result = {"max_tokens": args.max_tokens, "train_pairs": len(tgt),
              "nmt": {"max_tokens": args.max_tokens, "batches_per_epoch": len(nmt),
                      "mean_real_tgt_tokens": round(target, 1)}}
    peers = {
        "onmt": lambda b: batches_onmt(src, tgt, sources, b),
        "joey": lambda b: batches_joey(src, tgt, b),
        "marian": lambda b: batches_marian(src, tgt, b),
    }
    for name, rule in peers.items():
        size = solve(rule, target, 1, 16 * args.max_tokens)
        batches, dropped = rule(size)
        result[name] = {"batch_size": size, "batches_per_epoch": len(batches),
                        "mean_real_tgt_tokens": round(mean(batches), 1),
                        "at_nominal": round(mean(rule(args.max_tokens)[0]), 1),
                        "dropped_pairs_per_epoch": dropped}
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result))


def cmd_detok(args):
    processor = load_spm(args.model)
    with open(args.input, encoding="utf-8") as f, open(args.output, "w", encoding="utf-8") as out:
        for line in f:
            pieces = [p for p in line.split() if p]
            out.write(processor.DecodePieces(pieces).strip() + "\n")


def cmd_score(args):
    import sacrebleu

    def lines(path):
        with open(path, encoding="utf-8") as f:
            return [line.rstrip("\n") for line in f]

    hyps, refs = lines(args.hyp), lines(args.ref)
    if len(hyps) != len(refs):
        sys.exit(f"train_helper: {args.hyp} has {len(hyps)} lines, {args.ref} {len(refs)}")
    bleu = sacrebleu.metrics.BLEU()
    chrf = sacrebleu.metrics.CHRF()
    b, c = bleu.corpus_score(hyps, [refs]), chrf.corpus_score(hyps, [refs])
    result = {"bleu": round(b.score, 2), "chrf": round(c.score, 2), "sentences": len(hyps),
              "bleu_signature": str(bleu.get_signature()),
              "chrf_signature": str(chrf.get_signature())}
    Path(args.out).write_text(json.dumps(result) + "\n")
    print(json.dumps(result))


def throughput(records, warmup, steps):
    """records: dicts with step (1-based), t_end (seconds), tgt_tokens, sorted by step. The timed
    window is steps warmup+1 .. warmup+steps, from the end of step `warmup` to the end of the last
    one, so it holds their data loading, forward, backward and optimiser steps."""
    by_step = {r["step"]: r for r in records}
    if warmup < 1 or warmup not in by_step:
        return None
    last = max(s for s in by_step if s <= warmup + steps)
    window = [by_step[s] for s in range(warmup + 1, last + 1) if s in by_step]
    if not window:
        return None
    seconds = by_step[last]["t_end"] - by_step[warmup]["t_end"]
    tokens = sum(r["tgt_tokens"] for r in window)
    padded = sum(r.get("padded_tgt_tokens", 0) for r in window)
    return figures(len(window), seconds, tokens, padded)


def figures(steps, seconds, tokens, padded=0):
    """The throughput figures of `steps` updates that took `seconds` and held `tokens` real
    target tokens in `padded` positions (0: unknown)."""
    return {"steps": steps, "seconds": round(seconds, 3),
            "tgt_tokens": tokens, "tgt_tokens_per_s": round(tokens / seconds, 1),
            "ms_per_step": round(1000 * seconds / steps, 1),
            "mean_tgt_tokens_per_step": round(tokens / steps, 1),
            "padding_fraction": round(1 - tokens / padded, 3) if padded else None}


def cmd_steps(args):
    with open(args.log) as f:
        lines = [json.loads(line) for line in f]
    records = [r for r in lines if "step" in r]
    result = throughput(records, args.warmup, args.steps) or {
        "error": f"{args.log}: fewer than {args.warmup + 1} steps logged"}
    ends = [r for r in lines if r.get("event") == "end"]
    if ends:
        result["peak_rss_mib"] = round(ends[-1]["max_rss_mib"])
    result["source"] = "per-step log of scripts/peers/peer_train.py"
    Path(args.out).write_text(json.dumps(result) + "\n")
    print(json.dumps(result))


MARIAN_DISPLAY = re.compile(r"Ep\. \S+ : Up\. (\d+) : Sen\. [\d,]+ : Cost \S+ : "
                            r"Time ([\d.]+)s : ([\d.]+) words/s")


def cmd_marian_steps(args):
    """Marian logs, every disp-freq updates, the seconds since its last such line and the target
    labels (</s> counted) per second over them: labels = their product. The timed window runs from
    the line of update `warmup` to the line of update warmup+steps, so both must be display points."""
    displays = []
    with open(args.log, encoding="utf-8", errors="replace") as f:
        for line in f:
            match = MARIAN_DISPLAY.search(line)
            if match:
                displays.append((int(match[1]), float(match[2]), float(match[3])))
    points = [update for update, _, _ in displays]
    last = args.warmup + args.steps
    if args.warmup not in points or last not in points:
        result = {"error": f"{args.log}: no display line at update {args.warmup} and {last} "
                           f"(displayed: {points[:3]}...{points[-3:]})"}
    else:
        window = [(seconds, seconds * rate) for update, seconds, rate in displays
                  if args.warmup < update <= last]
        result = figures(args.steps, sum(s for s, _ in window), round(sum(t for _, t in window)))
    if args.rss and Path(args.rss).is_file():
        kib = re.search(r"max_rss_kib (\d+)", Path(args.rss).read_text())
        if kib:
            result["peak_rss_mib"] = round(int(kib[1]) / 1024)
    result["source"] = "Marian's training log (Time and words/s every disp-freq updates)"
    Path(args.out).write_text(json.dumps(result) + "\n")
    print(json.dumps(result))


def cmd_marian_end(args):
    """The updates of a Marian run stopped by SIGTERM: `batches` in the progress file it saves
    beside the model."""
    match = re.search(r"^batches: (\d+)$", Path(args.progress).read_text(), re.MULTILINE)
    print(match[1] if match else "")


def parse_value(text):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def cmd_merge(args):
    """OUT = the given JSON files' objects merged (later ones win), then KEY=VALUE pairs (VALUE
    parsed as JSON when it is JSON) and KEY@=FILE pairs (the JSON object in FILE, as one key)."""
    result = {}
    for path in args.json or []:
        if Path(path).is_file() and Path(path).stat().st_size:
            result.update(json.loads(Path(path).read_text()))
    for item in args.set or []:
        key, sep, value = item.partition("=")
        if key.endswith("@"):
            path = Path(value)
            result[key[:-1]] = json.loads(path.read_text()) if path.is_file() else None
        else:
            result[key] = parse_value(value)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


def cmd_nmt_end(args):
    """The steps and epoch of an nmt run stopped by SIGTERM: its metrics.jsonl end record."""
    end = {}
    with open(args.metrics) as f:
        for line in f:
            record = json.loads(line)
            if record.get("event") in ("end", "train", "epoch"):
                end.update({"steps": record.get("step"), "train_seconds": record.get("train_seconds")})
            if record.get("event") == "end":
                end["stop"] = record.get("reason")
    print(json.dumps(end))


def fmt(value, digits=2):
    if value is None or value == "":
        return "–"
    if isinstance(value, (int, float)):
        return f"{value:,.{digits}f}"
    return str(value)


def cmd_table(args):
    record = Path(args.record)
    meta = json.loads((record / "meta.json").read_text()) if (record / "meta.json").exists() else {}
    results = [json.loads(p.read_text()) for p in sorted((record / "results").glob("*.json"))]
    results.sort(key=lambda r: r.get("order", 99))
    throughput = [r for r in results if r.get("kind") == "throughput"]
    quality = [r for r in results if r.get("kind") == "quality"]
    lines = [f"# Training: nmt against its peers, {meta.get('date', '')}", ""]
    lines += [f"- machine: {meta.get('cpu', '?')}, {meta.get('cores', '?')} cores; every tool "
              f"ran with {meta.get('threads', '?')} threads under `taskset -c {meta.get('cpus', '?')}`, "
              "one after the other",
              f"- CPU flags: {meta.get('cpu_flags', '?')}; tier: {meta.get('tier', '?')}",
              f"- commit: {meta.get('commit', '?')}",
              f"- load average before the run: {meta.get('loadavg_start', '?')}; after: "
              f"{meta.get('loadavg_end', '?')} (measure on an otherwise idle machine)",
              f"- command: `{meta.get('command', '')}`",
              "- versions: " + "; ".join(f"{k} {v}" for k, v in meta.get("versions", {}).items()),
              f"- data: {meta.get('data', '')}", ""]
    if throughput:
        lines += ["## Throughput", "",
                  f"Real (non-padding) target tokens per second, <EOS> counted and <BOS> not, over "
                  f"{meta.get('steps', '?')} updates after {meta.get('warmup', '?')} untimed ones. "
                  "Every tool's batches hold on average the same number of real target tokens as "
                  "nmt's `max_tokens` 4000 batches (batch settings calibrated on this split).", ""]
        # Ratios against OpenNMT-py (issue 24's goal: nmt at least twice its tokens/s), else
        # against the first nmt row.
        reference = next((r for r in throughput
                          if r.get("tool") == "OpenNMT-py" and r.get("tgt_tokens_per_s")), None)
        reference = reference or next((r for r in throughput if r.get("tgt_tokens_per_s")), {})
        base = reference.get("tgt_tokens_per_s")
        base_name = f"{reference.get('tool', '')} {reference.get('precision', '')}".strip()
        lines += ["| tool | precision | batch setting | real target tokens / update | padding "
                  f"| ms / update | peak RSS MiB | real target tokens/s | vs {base_name} "
                  "| how the figure is read |",
                  "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        for r in throughput:
            head = f"| {r.get('tool')} | {r.get('precision', '')} | {r.get('batch', '')} |"
            if not r.get("tgt_tokens_per_s"):
                lines.append(f"{head} | | | | – | | did not run: {r.get('error', 'no result')} |")
                continue
            ratio = f"{r['tgt_tokens_per_s'] / base:.2f}" if base else "–"
            lines.append(f"{head} {fmt(r.get('mean_tgt_tokens_per_step'), 0)} | "
                         f"{fmt(r.get('padding_fraction'), 3)} | {fmt(r.get('ms_per_step'), 0)} | "
                         f"{fmt(r.get('peak_rss_mib'), 0)} | **{fmt(r['tgt_tokens_per_s'], 0)}** | "
                         f"{ratio} | {r.get('how', '')} |")
        lines.append("")
    if quality:
        signature = next((r["test"]["bleu_signature"] for r in quality
                          if isinstance(r.get("test"), dict) and "bleu_signature" in r["test"]), "")
        lines += ["## Quality after the same wall-clock budget", "",
                  f"Each tool trained for {meta.get('budget', '?')} s of wall clock from the launch "
                  "of its training command on the prepared pieces (start-up, data loading and its "
                  "own validations count; a validation or save under way at the deadline is let "
                  "finish), then translated the valid and test splits with beam 5 (fp32); output "
                  "pieces decoded with the shared SentencePiece model and scored by sacreBLEU "
                  f"against the same detokenised references (BLEU {signature}; chrF c6 w0).", "",
                  "| tool | training precision | updates | epochs | training wall s | weights "
                  "translated | valid BLEU | valid chrF | test BLEU | test chrF | note |",
                  "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |"]
        for r in quality:
            valid = r.get("valid") or {}
            test = r.get("test") or {}
            lines.append(
                f"| {r.get('tool')} | {r.get('precision', '')} | {fmt(r.get('steps'), 0)} | "
                f"{fmt(r.get('epochs'), 2)} | {fmt(r.get('train_wall_s'), 0)} | "
                f"{r.get('weights', '–')} | {fmt(valid.get('bleu'))} | {fmt(valid.get('chrf'))} | "
                f"{fmt(test.get('bleu'))} | {fmt(test.get('chrf'))} | {r.get('error', '')} |")
        lines.append("")
    notes = meta.get("notes", [])
    if notes:
        lines += ["## What is matched and what is not", ""] + [f"- {n}" for n in notes] + [""]
    (record / "training.md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pieces")
    p.add_argument("split")
    p.add_argument("out")
    p.set_defaults(run=cmd_pieces)
    p = sub.add_parser("calibrate")
    p.add_argument("pieces")
    p.add_argument("out")
    p.add_argument("--max-tokens", type=int, default=4000)
    p.set_defaults(run=cmd_calibrate)
    p = sub.add_parser("detok")
    p.add_argument("model")
    p.add_argument("input")
    p.add_argument("output")
    p.set_defaults(run=cmd_detok)
    p = sub.add_parser("score")
    p.add_argument("hyp")
    p.add_argument("ref")
    p.add_argument("out")
    p.set_defaults(run=cmd_score)
    p = sub.add_parser("steps")
    p.add_argument("log")
    p.add_argument("out")
    p.add_argument("--warmup", type=int, required=True)
    p.add_argument("--steps", type=int, required=True)
    p.set_defaults(run=cmd_steps)
    p = sub.add_parser("marian-steps")
    p.add_argument("log")
    p.add_argument("out")
    p.add_argument("--warmup", type=int, required=True)
    p.add_argument("--steps", type=int, required=True)
    p.add_argument("--rss", help="a file with `max_rss_kib N` (/usr/bin/time -f)")
    p.set_defaults(run=cmd_marian_steps)
    p = sub.add_parser("marian-end")
    p.add_argument("progress")
    p.set_defaults(run=cmd_marian_end)
    p = sub.add_parser("merge")
    p.add_argument("out")
    p.add_argument("--json", action="append")
    p.add_argument("--set", action="append")
    p.set_defaults(run=cmd_merge)
    p = sub.add_parser("nmt-end")
    p.add_argument("metrics")
    p.set_defaults(run=cmd_nmt_end)
    p = sub.add_parser("table")
    p.add_argument("record")
    p.set_defaults(run=cmd_table)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
