"""The Python half of scripts/peers/bench-marian.sh (see its --help), one subcommand per step:

    bench_marian.py sample --tsv TSV --n N --seed S --sources FILE --pairs TSV
    bench_marian.py make-model --tsv TSV --size full|quick --out DIR                 (.venv/hf)
    bench_marian.py ct2-convert --model DIR --out DIR --ct2-site DIR                 (.venv/hf)
    bench_marian.py hf-translate --model DIR --src FILE ... --out HYP --json RESULT  (.venv/hf)
    bench_marian.py ct2-translate --model DIR --src FILE ... --out HYP --json RESULT (.venv/ct2)
    bench_marian.py hf-train --model DIR --tsv TSV --trainer seq2seq|loop ... --json RESULT
    bench_marian.py table RECORD_DIR

A translation subcommand times, after a warm-up on the first 16 sentences, the whole of it:
tokenising, length-sorted batches of --batch-size, decoding, detokenising; it counts output
tokens without </s>, as nmt bench translate does.
"""

import argparse
import gzip
import json
import random
import resource
import sys
import time
from pathlib import Path

WARMUP_SENTENCES = 16


def read_lines(path):
    with open(path, encoding="utf-8") as file:
        return [line.rstrip("\n") for line in file]


def write_lines(path, lines):
    with open(path, "w", encoding="utf-8") as file:
        file.writelines(line + "\n" for line in lines)


def write_result(path, result):
    result["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB
    with open(path, "w", encoding="utf-8") as file:
        json.dump(result, file, indent=2)
        file.write("\n")


def read_pairs(path):
    """(English, Spanish) pairs of a Tatoeba TSV file, gzip-compressed or not."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as file:
        return [tuple(line.rstrip("\n").split("\t")[:2]) for line in file if "\t" in line]


def sample(args):
    """N pairs drawn without replacement, with a fixed seed, from the pairs whose English side is
    not drawn already: the translation sentences (English only) or the training pairs (TSV)."""
    pairs = read_pairs(args.tsv)
    order = list(range(len(pairs)))
    random.Random(args.seed).shuffle(order)
    chosen, seen = [], set()
    for index in order:
        if pairs[index][0] not in seen:
            seen.add(pairs[index][0])
            chosen.append(pairs[index])
        if len(chosen) == args.n:
            break
    write_lines(args.sources, [english for english, _ in chosen])
    write_lines(args.pairs, [f"{english}\t{spanish}" for english, spanish in chosen])


def speed(sources, lengths, capped, seconds, args, engine):
    return {
        "engine": engine,
        "strategy": args.strategy,
        "beam_size": args.beam_size if args.strategy == "beam" else 1,
        "precision": args.precision,
        "sentences": len(sources),
        "seconds": seconds,
        "sentences_per_s": len(sources) / seconds,
        "output_tokens_per_s": sum(lengths) / seconds,
        "mean_output_tokens": sum(lengths) / len(lengths),
        "capped_outputs": capped,
    }


def hf_translate_all(model, tokenizer, sources, args):
    """Translations and output lengths (tokens without </s>) of `sources`, in their order."""
    import torch

    encoded = tokenizer(sources).input_ids
    order = sorted(range(len(sources)), key=lambda i: -len(encoded[i]))
    texts, lengths = [None] * len(sources), [0] * len(sources)
    for start in range(0, len(order), args.batch_size):
        rows = order[start:start + args.batch_size]
        batch = tokenizer.pad({"input_ids": [encoded[i] for i in rows]}, return_tensors="pt")
        with torch.inference_mode():
            out = model.generate(
                **batch,
                num_beams=args.beam_size if args.strategy == "beam" else 1,
                do_sample=False,
                max_new_tokens=args.max_len + 1,  # the forced </s> after max_len tokens
            )
        eos = model.config.eos_token_id
        for i, ids in zip(rows, out[:, 1:].tolist()):
            lengths[i] = ids.index(eos) if eos in ids else len(ids)
            texts[i] = tokenizer.decode(ids[: lengths[i]], skip_special_tokens=True)
    return texts, lengths


def hf_translate(args):
    import torch
    import transformers
    from transformers import MarianMTModel, MarianTokenizer

    torch.set_num_threads(args.threads)
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    tokenizer = MarianTokenizer.from_pretrained(args.model)
    model = MarianMTModel.from_pretrained(args.model, dtype=torch.float32).eval()
    if args.precision == "bf16":
        model = model.to(torch.bfloat16)
    sources = read_lines(args.src)
    hf_translate_all(model, tokenizer, sources[:WARMUP_SENTENCES], args)
    start = time.perf_counter()
    texts, lengths = hf_translate_all(model, tokenizer, sources, args)
    seconds = time.perf_counter() - start
    write_lines(args.out, texts)
    engine = f"transformers {transformers.__version__} (torch {torch.__version__})"
    result = speed(sources, lengths, sum(n >= args.max_len for n in lengths), seconds, args, engine)
    result["threads"] = torch.get_num_threads()
    write_result(args.json, result)


def ct2_convert(args):
    """CTranslate2's own converter on the model directory. It needs transformers and torch, which
    .venv/ct2 lacks: .venv/hf runs it with .venv/ct2's site-packages appended to its path, so that
    only ctranslate2 itself comes from there."""
    sys.path.append(args.ct2_site)
    import ctranslate2
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    converter = ctranslate2.converters.TransformersConverter(
        args.model, copy_files=["source.spm", "target.spm"])
    converter.convert(args.out, force=True)
    print(f"bench_marian: converted by CTranslate2 {ctranslate2.__version__} into {args.out}",
          file=sys.stderr)


def ct2_translate(args):
    import ctranslate2
    import sentencepiece

    model = Path(args.model)
    source_spm = sentencepiece.SentencePieceProcessor(model_file=str(model / "source.spm"))
    target_spm = sentencepiece.SentencePieceProcessor(model_file=str(model / "target.spm"))
    vocabulary = set(json.loads((model / "shared_vocabulary.json").read_text(encoding="utf-8")))

    def tokenize(line):  # as MarianTokenizer: pieces outside the vocabulary are <unk>, then </s>
        pieces = source_spm.encode(line, out_type=str)
        return [piece if piece in vocabulary else "<unk>" for piece in pieces] + ["</s>"]

    translator = ctranslate2.Translator(
        args.model, device="cpu", compute_type=args.precision, inter_threads=args.translators,
        intra_threads=args.threads)
    options = dict(max_batch_size=args.batch_size,
                   beam_size=args.beam_size if args.strategy == "beam" else 1,
                   max_decoding_length=args.max_len)
    sources = read_lines(args.src)
    translator.translate_batch([tokenize(s) for s in sources[:WARMUP_SENTENCES]], **options)
    start = time.perf_counter()
    results = translator.translate_batch([tokenize(s) for s in sources], **options)
    # As MarianTokenizer decodes: pieces target.spm lacks (source-side ones of the joint
    # vocabulary) pass through DecodePieces with their word marks, which then become spaces.
    texts = [target_spm.decode_pieces(result.hypotheses[0]).replace("\u2581", " ").strip()
             for result in results]
    seconds = time.perf_counter() - start
    write_lines(args.out, texts)
    lengths = [len(result.hypotheses[0]) for result in results]
    result = speed(sources, lengths, sum(n >= args.max_len for n in lengths), seconds, args,
                   f"CTranslate2 {ctranslate2.__version__}")
    result["threads"] = f"intra {args.threads} x inter 1"
    write_result(args.json, result)


def translation_arguments(parser):
    parser.add_argument("--model", required=True)
    parser.add_argument("--src", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--json", required=True)
    parser.add_argument("--strategy", choices=["greedy", "beam"], required=True)
    parser.add_argument("--beam-size", type=int, default=4)
    parser.add_argument("--precision", required=True)
    parser.add_argument("--threads", type=int, default=2, help="threads of each translator")
    parser.add_argument("--translators", type=int, default=1,
                        help="CTranslate2's inter_threads: batches translated side by side")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-len", type=int, required=True, help="output tokens before </s>")


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("sample")
    for name in ("--tsv", "--sources", "--pairs"):
        command.add_argument(name, required=True)
    command.add_argument("--n", type=int, required=True)
    command.add_argument("--seed", type=int, required=True)
    command = commands.add_parser("make-model")
    command.add_argument("--tsv", required=True)
    command.add_argument("--size", choices=["full", "quick"], required=True)
    command.add_argument("--out", required=True)
    command.add_argument("--threads", type=int, default=2)
    command = commands.add_parser("ct2-convert")
    for name in ("--model", "--out", "--ct2-site"):
        command.add_argument(name, required=True)
    translation_arguments(commands.add_parser("hf-translate"))
    translation_arguments(commands.add_parser("ct2-translate"))
    command = commands.add_parser("hf-train")
    for name in ("--model", "--tsv", "--json"):
        command.add_argument(name, required=True)
    command.add_argument("--trainer", choices=["seq2seq", "loop"], required=True)
    command.add_argument("--precision", choices=["fp32", "bf16"], required=True)
    command.add_argument("--steps", type=int, required=True)
    command.add_argument("--warmup", type=int, required=True)
    command.add_argument("--batch-size", type=int, default=32)
    command.add_argument("--threads", type=int, default=2)
    command = commands.add_parser("table")
    command.add_argument("record")
    return parser.parse_args()


def main():
    args = parse_arguments()
    if args.command == "make-model":
        from bench_marian_model import make_model_directory

        make_model_directory(args)
    elif args.command == "hf-train":
        from bench_marian_train import hf_train

        hf_train(args)
    elif args.command == "table":
        from bench_marian_table import write_tables

        write_tables(args.record)
    else:
        {"sample": sample, "ct2-convert": ct2_convert, "hf-translate": hf_translate,
         "ct2-translate": ct2_translate}[args.command](args)


if __name__ == "__main__":
    main()
