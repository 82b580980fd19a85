#!/usr/bin/env python3
"""transformers' side of the round trip of nmt's own runs (huggingface_round_trip_test.sh), run by
.venv/hf's Python on a directory `nmt export --format huggingface` wrote, loaded by transformers
alone (AutoTokenizer, AutoModelForSeq2SeqLM):

    huggingface_round_trip.py DIR REFERENCE.jsonl [BEAM_SOURCES BEAM_TRANSLATIONS]

For every line of REFERENCE.jsonl (written by reference_translations):
1. the tokenizer gives the sentence nmt's source pieces, and adds nothing around them;
2. generate() with one beam gives nmt's greedy translation token for token, given nmt's output
   limit and the </s> it forces after it (max_new_tokens);
3. transformers' log-probability of each token of nmt's translation and of its </s> is within
   1e-4 of nmt's teacher-forced one;
4. the tokenizer decodes nmt's translation to the text nmt gives (skip_special_tokens).
With BEAM_SOURCES and BEAM_TRANSLATIONS (nmt translate's output for them, beam 4): generate()
with 4 beams and the directory's other settings gives the same text for every sentence.

Prints one summary line; exits 1 with the differences when a check fails.
"""
import json
import sys

import torch
import transformers
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

TOLERANCE = 1e-4


def load(directory):
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    tokenizer = AutoTokenizer.from_pretrained(directory)
    model, info = AutoModelForSeq2SeqLM.from_pretrained(
        directory, dtype=torch.float32, output_loading_info=True
    )
    problems = {kind: keys for kind, keys in info.items() if keys}
    if problems:
        sys.exit(f"huggingface_round_trip: {directory} does not load cleanly: {problems}")
    return tokenizer, model.eval()


def check_reference(tokenizer, model, record):
    """The differences for one sentence of REFERENCE.jsonl, as strings."""
    problems = []
    encoded = tokenizer(record["text"]).input_ids
    pieces = tokenizer.convert_ids_to_tokens(encoded)
    if pieces != record["source"]:
        problems.append(f"tokenizer: {pieces} != nmt's {record['source']}")
    source = torch.tensor([tokenizer.convert_tokens_to_ids(record["source"])])
    target = tokenizer.convert_tokens_to_ids(record["target"])
    # generate() counts the </s> it forces at its limit (forced_eos_token_id); nmt's limit is
    # on the tokens before it.
    output = model.generate(input_ids=source, num_beams=1, do_sample=False,
                            max_new_tokens=record["max_decoding_length"] + 1)[0].tolist()
    start = model.generation_config.decoder_start_token_id
    eos = model.generation_config.eos_token_id
    generated = [token for token in output if token not in (start, eos)]
    if generated != target:
        problems.append(f"greedy: {tokenizer.convert_ids_to_tokens(generated)} != nmt's "
                        f"{record['target']}")
    text = tokenizer.decode(target, skip_special_tokens=True)
    if text != record["translation"]:
        problems.append(f"decoded {text!r}, nmt {record['translation']!r}")
    decoder_input = torch.tensor([[start] + target])
    log_probs = model(input_ids=source, decoder_input_ids=decoder_input).logits.log_softmax(-1)[0]
    expected = target + [eos]
    got = [log_probs[i, token].item() for i, token in enumerate(expected)]
    worst = max(abs(a - b) for a, b in zip(got, record["log_probs"]))
    if worst > TOLERANCE:
        problems.append(f"log-probabilities differ by up to {worst:.2e}: {got} != nmt's "
                        f"{record['log_probs']}")
    return problems, worst


def main():
    if len(sys.argv) not in (3, 5):
        sys.exit(__doc__)
    torch.set_num_threads(1)
    tokenizer, model = load(sys.argv[1])
    records = [json.loads(line) for line in open(sys.argv[2], encoding="utf-8")]
    failures = 0
    worst = 0.0
    with torch.inference_mode():
        for record in records:
            problems, difference = check_reference(tokenizer, model, record)
            worst = max(worst, difference)
            for problem in problems:
                failures += 1
                print(f"{record['text']!r}: {problem}", file=sys.stderr)
        beams = 0
        if len(sys.argv) == 5:
            sources = open(sys.argv[3], encoding="utf-8").read().split("\n")[:-1]
            expected = open(sys.argv[4], encoding="utf-8").read().split("\n")[:-1]
            for source, translation in zip(sources, expected, strict=True):
                batch = tokenizer([source], return_tensors="pt")
                limit = 2 * batch.input_ids.shape[1] + 10 + 1
                output = model.generate(**batch, num_beams=4, do_sample=False,
                                        max_new_tokens=limit)
                text = tokenizer.decode(output[0], skip_special_tokens=True)
                beams += 1
                if text != translation:
                    failures += 1
                    print(f"{source!r}: beam 4 gives {text!r}, nmt {translation!r}",
                          file=sys.stderr)
    if failures:
        sys.exit(f"huggingface_round_trip: {sys.argv[1]}: {failures} differences")
    print(f"huggingface_round_trip: {sys.argv[1]}: {len(records)} sentences greedy, tokenized and "
          f"scored as nmt (log-probabilities within {worst:.1e}), {beams} with 4 beams")


if __name__ == "__main__":
    main()
