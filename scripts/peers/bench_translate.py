"""CTranslate2's half of scripts/peers/bench-translate.sh, and its table. Run by .venv/ct2's Python.

    bench_translate.py ct2 --model DIR --src FILE --tokenizer word|spm --out HYP --json RESULT
                           [--strategy greedy|beam] [--beam-size 5] [--length-penalty 1]
                           [--compute-type float32|int8] [--intra-threads 1] [--inter-threads 1]
                           [--batch-size 64] [--whole-process]
    bench_translate.py table RECORD_DIR

`ct2` translates the cleaned sources of FILE (one per line) as nmt does: the run's tokenizer
(SentencePiece model of the export, or words split on spaces), batches of --batch-size, no
<PAD>/<SOS> output, no minimum length, at most 256 tokens; it times tokenising, translating and
detokenising after a warm-up on the first 16 sentences, and writes the hypotheses in nmt's
decoded form (what `nmt eval --out` writes) and a JSON result (sentences/s, target tokens/s,
peak RSS of this process). --whole-process leaves the warm-up out, for a caller that times the
whole process from its start (scripts/peers/bench-whole-process.sh).

`table` scores every RECORD_DIR/raw/*.hyp.txt against RECORD_DIR/raw/references.txt with
sacreBLEU, joins the speed results (RECORD_DIR/raw/NAME.roundN.json, one per round; NAME.json in
records of one round) and writes RECORD_DIR/results.json and RECORD_DIR/table.md: each setting's
median round (the faster middle one of an even number), and every round's sentences/s; a row
whose BLEU differs from nmt's fp32 BLEU with the same decoding by more than 0.3 is marked void.
"""

import argparse
import glob
import json
import os
import re
import resource
import time

VOID_BLEU_DIFFERENCE = 0.3
MAX_DECODING_LENGTH = 256  # bench-translate.sh gives nmt --max-len 256 too


def read_lines(path):
    with open(path, encoding="utf-8") as file:
        return [line.rstrip("\n") for line in file]


def run_ct2(args):
    import ctranslate2

    sources = read_lines(args.src)
    if args.tokenizer == "spm":
        import sentencepiece

        def spm_model(side):
            shared = os.path.join(args.model, "spm.model")
            if os.path.exists(shared):
                return shared
            return os.path.join(args.model, f"spm.{side}.model")

        processor = sentencepiece.SentencePieceProcessor(model_file=spm_model("src"))
        target_processor = sentencepiece.SentencePieceProcessor(model_file=spm_model("tgt"))

        def tokenize(line):
            return processor.encode(line, out_type=str)

        def detokenize(tokens):
            return target_processor.decode(tokens)

    else:

        def tokenize(line):
            return line.split()

        def detokenize(tokens):
            return " ".join(tokens)

    translator = ctranslate2.Translator(
        args.model,
        device="cpu",
        compute_type=args.compute_type,
        intra_threads=args.intra_threads,
        inter_threads=args.inter_threads,
    )
    options = dict(
        max_batch_size=args.batch_size,
        beam_size=args.beam_size if args.strategy == "beam" else 1,
        length_penalty=args.length_penalty,
        min_decoding_length=0,
        max_decoding_length=MAX_DECODING_LENGTH,
        suppress_sequences=[["<PAD>"], ["<SOS>"]],
    )
    if not args.whole_process:
        translator.translate_batch([tokenize(line) for line in sources[:16]], **options)
    start = time.perf_counter()
    results = translator.translate_batch([tokenize(line) for line in sources], **options)
    hypotheses = [detokenize(result.hypotheses[0]) for result in results]
    seconds = time.perf_counter() - start
    tokens = sum(len(result.hypotheses[0]) for result in results)
    with open(args.out, "w", encoding="utf-8") as file:
        file.writelines(line + "\n" for line in hypotheses)
    result = {
        "engine": "ctranslate2 " + ctranslate2.__version__,
        "strategy": args.strategy,
        "beam_size": options["beam_size"],
        "precision": args.compute_type,
        "threads": f"intra {args.intra_threads} x inter {args.inter_threads}",
        "sentences": len(sources),
        "seconds": seconds,
        "sentences_per_s": len(sources) / seconds,
        "output_tokens_per_s": tokens / seconds,
        # ru_maxrss is in KiB on Linux.
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    with open(args.json, "w", encoding="utf-8") as file:
        json.dump(result, file, indent=2)
        file.write("\n")


def median_rounds(record):
    """Each setting's median round, with every round's sentences/s, by setting name."""
    rounds = {}
    for path in sorted(glob.glob(os.path.join(record, "raw", "*.json"))):
        name = re.sub(r"(\.round\d+)?\.json$", "", os.path.basename(path))
        with open(path, encoding="utf-8") as file:
            rounds.setdefault(name, []).append(json.load(file))
    settings = {}
    for name, results in rounds.items():
        timed = sorted(
            (result for result in results if "error" not in result),
            key=lambda result: result["sentences_per_s"],
            reverse=True,
        )
        row = dict(timed[(len(timed) - 1) // 2] if timed else results[0])
        if timed:
            row["rounds_sentences_per_s"] = [result["sentences_per_s"] for result in results]
        row["name"] = name
        settings[name] = row
    return settings


def write_table(record):
    import sacrebleu

    references = read_lines(os.path.join(record, "raw", "references.txt"))
    rows = []
    for name, row in sorted(median_rounds(record).items()):
        hypotheses_path = os.path.join(record, "raw", name + ".hyp.txt")
        if "error" not in row:
            hypotheses = read_lines(hypotheses_path)
            row["bleu"] = sacrebleu.corpus_bleu(hypotheses, [references]).score
        rows.append(row)
    baseline = {
        row["strategy"]: row["bleu"]
        for row in rows
        if row["name"].startswith("nmt-") and row.get("precision") == "fp32" and "bleu" in row
    }
    for row in rows:
        if "bleu" in row and row["strategy"] in baseline:
            difference = row["bleu"] - baseline[row["strategy"]]
            row["bleu_vs_nmt_fp32"] = difference
            row["void"] = abs(difference) > VOID_BLEU_DIFFERENCE
    lines = [
        "| engine | decoding | precision | threads | sentences/s | target tokens/s "
        "| peak RSS (MiB) | BLEU | vs nmt fp32 | sentences/s of each round |",
        "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for row in sorted(rows, key=lambda r: (r["strategy"], r["name"])):
        decoding = "greedy" if row["strategy"] == "greedy" else f"beam {row['beam_size']}"
        if "error" in row:
            lines.append(
                f"| {row['engine']} | {decoding} | {row['precision']} | {row['threads']} "
                f"| – | – | – | – | not run: {row['error']} | – |"
            )
            continue
        verdict = f"{row['bleu_vs_nmt_fp32']:+.2f}" + (" **void**" if row["void"] else "")
        each_round = ", ".join(f"{value:.1f}" for value in row["rounds_sentences_per_s"])
        lines.append(
            f"| {row['engine']} | {decoding} | {row['precision']} | {row['threads']} "
            f"| {row['sentences_per_s']:.1f} | {row['output_tokens_per_s']:.1f} "
            f"| {row['peak_rss_mib']:.0f} | {row['bleu']:.2f} | {verdict} | {each_round} |"
        )
    with open(os.path.join(record, "table.md"), "w", encoding="utf-8") as file:
        file.write("\n".join(lines) + "\n")
    with open(os.path.join(record, "results.json"), "w", encoding="utf-8") as file:
        json.dump(rows, file, indent=2)
        file.write("\n")
    print("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    ct2 = commands.add_parser("ct2")
    ct2.add_argument("--model", required=True)
    ct2.add_argument("--src", required=True)
    ct2.add_argument("--tokenizer", choices=["word", "spm"], required=True)
    ct2.add_argument("--out", required=True)
    ct2.add_argument("--json", required=True)
    ct2.add_argument("--strategy", choices=["greedy", "beam"], default="greedy")
    ct2.add_argument("--beam-size", type=int, default=5)
    ct2.add_argument("--length-penalty", type=float, default=1.0)
    ct2.add_argument("--compute-type", default="float32")
    ct2.add_argument("--intra-threads", type=int, default=1)
    ct2.add_argument("--inter-threads", type=int, default=1)
    ct2.add_argument("--batch-size", type=int, default=64)
    ct2.add_argument("--whole-process", action="store_true")
    table = commands.add_parser("table")
    table.add_argument("record")
    args = parser.parse_args()
    if args.command == "ct2":
        run_ct2(args)
    else:
        write_table(args.record)


if __name__ == "__main__":
    main()
