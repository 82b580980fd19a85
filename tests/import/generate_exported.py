#!/usr/bin/env python3
"""Translates with a directory `nmt export --format huggingface` wrote, loaded by transformers
alone (AutoTokenizer, AutoModelForSeq2SeqLM), as a user of the hub would. Run by .venv/hf's
Python:

    generate_exported.py DIR SOURCES OUT_PREFIX

Writes OUT_PREFIX.greedy and OUT_PREFIX.beam: generate() with num_beams 1 and 4 (the rest from the
directory's generation_config.json) and max_new_tokens 20, one sentence per call, decoded with
skip_special_tokens. Exits 1 with the reason when the directory does not load completely.
"""
import sys
import warnings

import torch
import transformers
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    directory, sources, prefix = sys.argv[1:]
    torch.set_num_threads(1)
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    # MarianTokenizer recommends sacremoses for a normaliser that encoding never calls.
    warnings.filterwarnings("ignore", message="Recommended: pip install sacremoses")
    tokenizer = AutoTokenizer.from_pretrained(directory)
    model, info = AutoModelForSeq2SeqLM.from_pretrained(
        directory, dtype=torch.float32, output_loading_info=True
    )
    problems = {kind: keys for kind, keys in info.items() if keys}
    if problems:
        sys.exit(f"generate_exported: {directory} does not load cleanly: {problems}")
    model.eval()
    lines = open(sources, encoding="utf-8").read().split("\n")[:-1]
    for strategy, beams in (("greedy", 1), ("beam", 4)):
        with open(f"{prefix}.{strategy}", "w", encoding="utf-8") as out, torch.inference_mode():
            for line in lines:
                source = tokenizer(line, return_tensors="pt").input_ids
                output = model.generate(input_ids=source, num_beams=beams, do_sample=False,
                                        max_new_tokens=20)
                out.write(tokenizer.decode(output[0], skip_special_tokens=True) + "\n")


if __name__ == "__main__":
    main()
