"""CTranslate2's side of the round trip (round_trip_test.sh), run by .venv/ct2's Python.

    round_trip.py MODEL_DIR REFERENCE.jsonl

1. Rebuilds MODEL_DIR with CTranslate2's own writer: a TransformerSpec made by
   TransformerSpec.from_config with the layers, heads and norm placement read from MODEL_DIR,
   given MODEL_DIR's arrays, vocabularies and nmt's special tokens, validated and saved. Its
   model.bin must equal nmt's byte for byte (same names, order, scalars, aliases), and its
   config.json and vocabularies must hold the same values.
2. Translates every source of REFERENCE.jsonl (written by reference_translations) greedily in
   fp32 and requires nmt's translation token for token.
3. Scores nmt's translation (score_batch) and requires each token's log-probability within 1e-4
   of nmt's teacher-forced one.

Prints one summary line; exits 1 with the differences when a check fails.
"""

import collections
import json
import os
import re
import struct
import sys
import tempfile

import ctranslate2
import numpy as np
from ctranslate2.specs import common_spec, model_spec, transformer_spec

TOLERANCE = 1e-4
DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32}


def read_model_bin(path):
    data = open(path, "rb").read()
    position = 0

    def take(size):
        nonlocal position
        chunk = data[position : position + size]
        if len(chunk) != size:
            raise ValueError(f"{path}: truncated at byte {position}")
        position += size
        return chunk

    def number(fmt):
        return struct.unpack("<" + fmt, take(struct.calcsize(fmt)))[0]

    def string():
        return take(number("H"))[:-1].decode("utf-8")

    header = (number("I"), string(), number("I"))
    variables = {}
    for _ in range(number("I")):
        name = string()
        shape = [number("I") for _ in range(number("B"))]
        dtype = DTYPES[number("B")]
        variables[name] = np.frombuffer(take(number("I")), dtype=dtype).reshape(shape)
    aliases = {}
    for _ in range(number("I")):
        alias = string()
        aliases[alias] = string()
    if position != len(data):
        raise ValueError(f"{path}: {len(data) - position} bytes after the aliases")
    return header, variables, aliases


def load_json(path):
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def vocabularies(model_dir):
    shared = os.path.join(model_dir, "shared_vocabulary.json")
    if os.path.exists(shared):
        tokens = load_json(shared)
        return tokens, tokens
    return (
        load_json(os.path.join(model_dir, "source_vocabulary.json")),
        load_json(os.path.join(model_dir, "target_vocabulary.json")),
    )


def rebuild_with_ctranslate2(model_dir, out_dir):
    """Saves MODEL_DIR's model through CTranslate2's TransformerSpec into out_dir."""
    header, variables, aliases = read_model_bin(os.path.join(model_dir, "model.bin"))
    if header != (6, "TransformerSpec", 7):
        raise ValueError(f"model.bin header {header}")
    layers = {}
    for stack in ("encoder", "decoder"):
        layer = re.compile(stack + r"/layer_(\d+)/")
        layers[stack] = len({m.group(1) for m in map(layer.match, variables) if m})
    spec = transformer_spec.TransformerSpec.from_config(
        (layers["encoder"], layers["decoder"]),
        int(variables["encoder/num_heads"]),
        pre_norm=bool(variables["encoder/pre_norm"]),
        activation=common_spec.Activation(int(variables["encoder/activation"])),
    )
    arrays = {name: value for name, value in variables.items() if value.ndim > 0}
    arrays.update({alias: variables[target] for alias, target in aliases.items()})
    for name, value in arrays.items():
        scope, attribute = name.rsplit("/", 1)
        # A name TransformerSpec does not declare raises AttributeError (frozen specs).
        setattr(model_spec.index_spec(spec, scope), attribute, value)
    # What a converter decides: the only scalars not fixed by from_config.
    spec.encoder.scale_embeddings = bool(variables["encoder/scale_embeddings"])
    spec.decoder.scale_embeddings = bool(variables["decoder/scale_embeddings"])
    spec.config.unk_token = "<UNK>"
    spec.config.bos_token = "<SOS>"
    spec.config.eos_token = "<EOS>"
    spec.config.decoder_start_token = "<SOS>"
    spec.config.layer_norm_epsilon = 1e-5
    source, target = vocabularies(model_dir)
    spec.register_source_vocabulary(source)
    spec.register_target_vocabulary(target)
    spec.validate()
    spec.optimize()
    spec.save(out_dir)


def check_files(model_dir, failures):
    with tempfile.TemporaryDirectory() as rebuilt:
        rebuild_with_ctranslate2(model_dir, rebuilt)
        ours = open(os.path.join(model_dir, "model.bin"), "rb").read()
        theirs = open(os.path.join(rebuilt, "model.bin"), "rb").read()
        if ours != theirs:
            failures.append(
                f"model.bin differs from CTranslate2's ({len(ours)} and {len(theirs)} bytes)"
            )
        if load_json(os.path.join(model_dir, "config.json")) != load_json(
            os.path.join(rebuilt, "config.json")
        ):
            failures.append("config.json differs from CTranslate2's")
        if vocabularies(model_dir) != vocabularies(rebuilt):
            failures.append("the vocabularies differ from CTranslate2's")


def check_translations(translator, references, failures):
    by_limit = collections.defaultdict(list)
    for index, reference in enumerate(references):
        by_limit[reference["max_decoding_length"]].append(index)
    mismatches = 0
    for limit, indices in sorted(by_limit.items()):
        results = translator.translate_batch(
            [references[i]["source"] for i in indices],
            beam_size=1,
            max_decoding_length=limit,
            min_decoding_length=0,
            # nmt never generates these (decode/row_decoding.h).
            suppress_sequences=[["<PAD>"], ["<SOS>"]],
        )
        for index, result in zip(indices, results):
            expected = references[index]["target"]
            if result.hypotheses[0] != expected:
                mismatches += 1
                if mismatches <= 5:
                    failures.append(
                        f"sentence {index}: CTranslate2 {result.hypotheses[0]} "
                        f"!= nmt {expected}"
                    )
    return mismatches


def check_scores(translator, references, failures):
    results = translator.score_batch(
        [r["source"] for r in references], [r["target"] for r in references]
    )
    worst = 0.0
    for index, (reference, result) in enumerate(zip(references, results)):
        if result.tokens != reference["target"] + ["<EOS>"]:
            failures.append(f"sentence {index}: scored tokens {result.tokens}")
            continue
        difference = float(
            np.max(np.abs(np.array(result.log_probs) - np.array(reference["log_probs"])))
        )
        worst = max(worst, difference)
        if difference > TOLERANCE:
            failures.append(
                f"sentence {index}: log-probabilities differ by {difference:.2e} "
                f"(CTranslate2 {result.log_probs}, nmt {reference['log_probs']})"
            )
    return worst


def main():
    model_dir, reference_path = sys.argv[1:3]
    with open(reference_path, encoding="utf-8") as file:
        references = [json.loads(line) for line in file]
    if not references:
        sys.exit(f"{reference_path}: no sentences")
    failures = []
    check_files(model_dir, failures)
    translator = ctranslate2.Translator(
        model_dir, device="cpu", compute_type="float32", intra_threads=1
    )
    mismatches = check_translations(translator, references, failures)
    worst = check_scores(translator, references, failures)
    tokens = sum(len(r["target"]) + 1 for r in references)
    print(
        f"round_trip: {model_dir}: model.bin as CTranslate2 writes it; "
        f"{len(references) - mismatches}/{len(references)} greedy translations equal; "
        f"{tokens} token log-probabilities, largest difference {worst:.1e} "
        f"(ctranslate2 {ctranslate2.__version__})"
    )
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
