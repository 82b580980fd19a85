"""Small random Hugging Face Marian models (MarianMTModel, the OPUS-MT layout) with reference
outputs, made by the real transformers for the tests of `nmt import --format marian`. Run by
.venv/hf's Python (scripts/peers/setup-venv.sh hf):

    make_marian_fixture.py OUT_DIR [--variant NAME]

Writes OUT_DIR/NAME/ for one variant, or for each of them without --variant, exactly as a user
downloads such a model (config.json, generation_config.json, the weights, source.spm, target.spm,
vocab.json, tokenizer_config.json, ...), plus reference.json: for the first 50 English sentences
of data/sample/en-es.tsv the source ids MarianTokenizer makes, the greedy and beam-4 outputs of
generate() with their texts, and teacher-forced log-probabilities of the greedy output. The
references come from the directory as saved, loaded back like a user would load it.

    base      d_model 32, 2+2 layers, 4 heads, FFN 64, swish, scaled embeddings, one shared
              vocabulary with shared and tied embeddings, non-zero final_logits_bias;
              model.safetensors
    tags      base + the target-language tags >>spa<<, >>fra<<, >>por<< in the vocabulary (ids
              2-4); half the sources start with >>spa<<, half with >>fra<<
    bin       base saved as pytorch_model.bin only
    fp16      base with its weights stored as float16 in model.safetensors
    separate  separate source and target vocabularies (vocab.json, target_vocab.json) and
              embeddings; decoder_vocab_size set

The same command gives the same files byte for byte: fixed seeds, one thread. Prints one line per
variant. Exits 2 on bad arguments and 1 on any failure: with a one-line reason for what it checks
(no transformers to import, corpus, vocabularies, a model that does not load back), with Python's
traceback for anything else.
"""

import argparse
import io
import json
import shutil
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

try:
    import sentencepiece
    import torch
    import transformers
    from safetensors import safe_open
    from transformers import GenerationConfig, MarianConfig, MarianMTModel, MarianTokenizer
except ImportError as error:
    sys.exit(
        f"make_marian_fixture: {error}: run it with .venv/hf/bin/python "
        "(made by scripts/peers/setup-venv.sh hf)"
    )

CORPUS = Path(__file__).resolve().parents[2] / "data" / "sample" / "en-es.tsv"
SEED = 20240601
# The English half of the sample corpus has room for at most 174 unigram pieces. Both models get
# the same size, so a separate target vocabulary is as long as the source one (see make_vocabs).
SPM_VOCAB_SIZE = 160
LANGUAGE_TAGS = (">>spa<<", ">>fra<<", ">>por<<")
REFERENCE_SENTENCES = 50
MAX_NEW_TOKENS = 20
EOS, UNK, PAD = "</s>", "<unk>", "<pad>"


class FixtureError(Exception):
    """A fixture cannot be made: the message says why."""


@dataclass(frozen=True)
class Variant:
    name: str
    has_tags: bool = False
    is_separate: bool = False
    is_fp16: bool = False
    is_safetensors: bool = True
    # Added to </s>'s final_logits_bias. A random model seldom ends a sentence by itself: every
    # output would stop at MAX_NEW_TOKENS with the </s> that forced_eos_token_id forces there.
    # Chosen per variant (its random weights differ) so that part of the greedy outputs end
    # early and part run to the limit: the references test both ways of stopping.
    eos_bias: float = 2.0


VARIANTS = {
    variant.name: variant
    for variant in (
        Variant("base"),
        Variant("tags", has_tags=True, eos_bias=2.75),
        Variant("bin", is_safetensors=False),
        Variant("fp16", is_fp16=True),
        Variant("separate", is_separate=True, eos_bias=2.75),
    )
}


def read_corpus():
    """The (English, Spanish) pairs of the sample corpus: `english<TAB>spanish` per line."""
    if not CORPUS.is_file():
        raise FixtureError(f"{CORPUS}: no such file")
    pairs = []
    with open(CORPUS, encoding="utf-8") as corpus:
        for number, line in enumerate(corpus, start=1):
            columns = line.rstrip("\n").split("\t")
            if len(columns) != 2:
                raise FixtureError(f"{CORPUS}:{number}: expected 2 columns, got {len(columns)}")
            pairs.append((columns[0], columns[1]))
    if len(pairs) < REFERENCE_SENTENCES:
        raise FixtureError(
            f"{CORPUS}: {len(pairs)} pairs, the references need {REFERENCE_SENTENCES}"
        )
    return pairs


def train_spm(texts, vocab_size=SPM_VOCAB_SIZE, threads=1):
    """A serialised SentencePiece unigram model of `texts`, with Marian's special ids: `</s>` 0 and
    `<unk>` 1, no `<s>` or `<pad>` (the vocabulary adds `<pad>`). One thread (the default): the
    same model every time."""
    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(texts),
        model_writer=model,
        model_type="unigram",
        vocab_size=vocab_size,
        character_coverage=1.0,
        eos_id=0,
        unk_id=1,
        bos_id=-1,
        pad_id=-1,
        num_threads=threads,
        minloglevel=2,
    )
    return model.getvalue()


def normal_pieces(spm_model):
    """The pieces of a serialised SentencePiece model in id order, without `</s>` and `<unk>`."""
    processor = sentencepiece.SentencePieceProcessor(model_proto=spm_model)
    return [
        processor.IdToPiece(i)
        for i in range(processor.GetPieceSize())
        if not (processor.IsControl(i) or processor.IsUnknown(i))
    ]


def marian_vocab(pieces):
    """Marian's vocabulary order: `</s>` 0, `<unk>` 1, the pieces, `<pad>` last."""
    tokens = [EOS, UNK, *pieces, PAD]
    return {token: i for i, token in enumerate(tokens)}


def make_vocabs(variant, source_spm, target_spm):
    """(vocab.json, target_vocab.json or None) of a variant, as piece -> model id maps."""
    source_pieces, target_pieces = normal_pieces(source_spm), normal_pieces(target_spm)
    if variant.is_separate:
        source, target = marian_vocab(source_pieces), marian_vocab(target_pieces)
        # MarianConfig has one pad_token_id (= decoder_start_token_id) for both vocabularies, and
        # transformers' OPUS-MT converter assumes that they have the same size: with equal sizes
        # `<pad>` has that one id in both.
        if len(source) != len(target):
            raise FixtureError(
                f"separate vocabularies of {len(source)} and {len(target)} tokens: <pad> would "
                "have two ids"
            )
        return source, target
    # One shared vocabulary: the tags (multi-target OPUS-MT models hold them as whole tokens,
    # never seen by SentencePiece), the source pieces, then the target pieces not among them.
    tags = list(LANGUAGE_TAGS) if variant.has_tags else []
    seen = set(source_pieces)
    shared = tags + source_pieces + [piece for piece in target_pieces if piece not in seen]
    return marian_vocab(shared), None


def write_tokenizer(directory, variant, pairs):
    """Writes the tokenizer files into `directory` and returns the tokenizer that saved them."""
    source_spm = train_spm([english for english, _ in pairs])
    target_spm = train_spm([spanish for _, spanish in pairs])
    source_vocab, target_vocab = make_vocabs(variant, source_spm, target_spm)
    (directory / "source.spm").write_bytes(source_spm)
    (directory / "target.spm").write_bytes(target_spm)
    write_json(directory / "vocab.json", source_vocab)
    files = {"vocab": str(directory / "vocab.json")}
    if target_vocab is not None:
        write_json(directory / "target_vocab.json", target_vocab)
        files["target_vocab_file"] = str(directory / "target_vocab.json")
    tokenizer = MarianTokenizer(
        source_spm=str(directory / "source.spm"),
        target_spm=str(directory / "target.spm"),
        source_lang="en",
        target_lang="es",
        separate_vocabs=variant.is_separate,
        **files,
    )
    # Writes tokenizer_config.json (and whatever else this transformers writes) as a user's
    # download has it; the vocabularies and SentencePiece models are written again or kept.
    tokenizer.save_pretrained(directory)
    return tokenizer


def randomize_(model, generator, eos_bias):
    """Gives every saved tensor random values. transformers starts biases at zero and LayerNorms
    at the identity, and its init_std (0.02) leaves a tiny model's output decided by
    final_logits_bias alone: an importer that dropped or swapped tensors would still match.
    Matrices get N(0, 1/fan_in) so activations stay near unit scale and the output depends on the
    input. The `<pad>` row too is random (OPUS-MT's is zero): decoding starts from `<pad>`, so the
    importer must take the row as stored. The sinusoid position tables are parameters too, but
    fixed and never saved: kept."""
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if "embed_positions" in name:
                continue
            noise = torch.randn(parameter.shape, generator=generator)
            if parameter.dim() == 2:
                parameter.copy_(noise * parameter.shape[1] ** -0.5)
            elif name.endswith("layer_norm.weight"):
                parameter.copy_(1 + 0.1 * noise)
            else:
                parameter.copy_(0.1 * noise)
        # A buffer, not a parameter: OPUS-MT's is non-zero, so the importer must add it.
        bias = model.final_logits_bias
        bias.copy_(0.5 * torch.randn(bias.shape, generator=generator))
        bias[0, model.config.eos_token_id] += eos_bias


def make_model(variant, vocab_size, target_vocab_size, pad_id):
    """A random MarianMTModel of the variant's shape with OPUS-MT's special ids and generation
    settings (max_length 64 instead of 512)."""
    config = MarianConfig(
        vocab_size=vocab_size,
        decoder_vocab_size=target_vocab_size,
        share_encoder_decoder_embeddings=not variant.is_separate,
        tie_word_embeddings=True,
        d_model=32,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        activation_function="swish",
        scale_embedding=True,
        max_position_embeddings=64,
        pad_token_id=pad_id,
        decoder_start_token_id=pad_id,
        eos_token_id=0,
        forced_eos_token_id=0,
    )
    model = MarianMTModel(config)
    randomize_(model, torch.Generator().manual_seed(SEED), variant.eos_bias)
    model.generation_config = GenerationConfig(
        num_beams=4,
        max_length=64,
        bad_words_ids=[[pad_id]],
        pad_token_id=pad_id,
        decoder_start_token_id=pad_id,
        eos_token_id=0,
        forced_eos_token_id=0,
    )
    return model.eval()


def save_model(model, directory, variant):
    if variant.is_fp16:
        model = model.half()
    model.save_pretrained(directory)
    if variant.is_safetensors:
        return
    # transformers 5 writes model.safetensors only (it takes and ignores safe_serialization=False).
    # OPUS-MT's pytorch_model.bin files were written by transformers 3 as torch.save(state_dict()):
    # an OrderedDict holding every name, the tied aliases (model.encoder/decoder.embed_tokens,
    # lm_head.weight: one storage) and the sinusoid tables (embed_positions) included.
    (directory / "model.safetensors").unlink()
    torch.save(model.state_dict(), directory / "pytorch_model.bin")


def load_model(directory):
    """The saved model loaded back as a user would, in float32 and eval mode; refuses a directory
    that does not load completely (a tensor missing or left over). float32 is asked for when
    loading: a float16 file loaded as float16 gets sinusoid position tables computed in float16
    (2e-4 off), which .float() afterwards does not undo."""
    model, info = MarianMTModel.from_pretrained(
        directory, dtype=torch.float32, output_loading_info=True
    )
    problems = {kind: keys for kind, keys in info.items() if keys}
    if problems:
        raise FixtureError(f"{directory}: the saved model does not load back cleanly: {problems}")
    return model.eval()


def stored_dtypes(directory):
    """The dtypes of the tensors in the directory's weights file, e.g. ["float32"]."""
    safetensors_path = directory / "model.safetensors"
    if safetensors_path.exists():
        with safe_open(safetensors_path, framework="pt") as weights:
            dtypes = {weights.get_slice(key).get_dtype() for key in weights.keys()}
        return sorted({"F32": "float32", "F16": "float16"}.get(d, d) for d in dtypes)
    state = torch.load(directory / "pytorch_model.bin", map_location="cpu", weights_only=True)
    return sorted({str(tensor.dtype).removeprefix("torch.") for tensor in state.values()})


def generated_ids(sequence, start_id):
    """generate()'s output for one sentence without its leading decoder start token."""
    ids = sequence.tolist()
    if ids[0] != start_id:
        raise FixtureError(f"generate() output {ids} does not start with {start_id}")
    return ids[1:]


def teacher_forced_log_probs(model, source, output_ids, start_id):
    """log P(output_ids[t] | source, start + output_ids[:t]) for each t, log_softmax in float64 of
    the float32 logits (lm_head + final_logits_bias; no generation processors applied)."""
    decoder_input = torch.tensor([[start_id] + output_ids[:-1]])
    logits = model(input_ids=source, decoder_input_ids=decoder_input).logits[0]
    log_probs = logits.double().log_softmax(dim=-1)
    return log_probs.gather(1, torch.tensor(output_ids)[:, None])[:, 0].tolist()


def reference_sources(variant, pairs):
    sources = [english for english, _ in pairs[:REFERENCE_SENTENCES]]
    if not variant.has_tags:
        return sources
    half = len(sources) // 2
    return [f">>spa<< {s}" for s in sources[:half]] + [f">>fra<< {s}" for s in sources[half:]]


def make_reference(directory, variant, pairs):
    """reference.json's content, from the directory as saved. One sentence per generate() call:
    no padding, so the outputs are those of the sentence alone."""
    tokenizer = MarianTokenizer.from_pretrained(directory)
    model = load_model(directory)
    start_id = model.config.decoder_start_token_id
    # generation_config.json leaves length_penalty unset, as OPUS-MT's do: generate() then takes
    # transformers' default. Passed explicitly so that reference.json states the value used.
    length_penalty = model.generation_config.length_penalty
    if length_penalty is None:
        length_penalty = GenerationConfig._get_default_generation_params()["length_penalty"]
    sentences = []
    with torch.inference_mode():
        for text in reference_sources(variant, pairs):
            source = tokenizer(text, return_tensors="pt").input_ids
            greedy = model.generate(
                input_ids=source, num_beams=1, do_sample=False, max_new_tokens=MAX_NEW_TOKENS
            )
            beam = model.generate(
                input_ids=source,
                num_beams=4,
                do_sample=False,
                max_new_tokens=MAX_NEW_TOKENS,
                length_penalty=length_penalty,
                output_scores=True,
                return_dict_in_generate=True,
            )
            greedy_ids = generated_ids(greedy[0], start_id)
            beam_ids = generated_ids(beam.sequences[0], start_id)
            sentences.append(
                {
                    "source": text,
                    "source_ids": source[0].tolist(),
                    "greedy_ids": greedy_ids,
                    "greedy_text": tokenizer.decode(greedy_ids, skip_special_tokens=True),
                    "greedy_log_probs": teacher_forced_log_probs(
                        model, source, greedy_ids, start_id
                    ),
                    "beam_ids": beam_ids,
                    "beam_text": tokenizer.decode(beam_ids, skip_special_tokens=True),
                    "beam_score": beam.sequences_scores[0].item(),
                }
            )
    dtypes = stored_dtypes(directory)
    return {
        "variant": variant.name,
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "model": (
            f"stored as {'/'.join(dtypes)}; run as "
            "MarianMTModel.from_pretrained(dir, dtype=torch.float32).eval() "
            f"(attention: {model.config._attn_implementation}), CPU, one sentence per call"
        ),
        "source_ids": "MarianTokenizer(text).input_ids: vocab.json ids, </s> (0) appended, no BOS",
        "greedy": {"num_beams": 1, "do_sample": False, "max_new_tokens": MAX_NEW_TOKENS},
        "beam": {
            "num_beams": 4,
            "do_sample": False,
            "max_new_tokens": MAX_NEW_TOKENS,
            "length_penalty": length_penalty,
        },
        "outputs": (
            "*_ids: generate() output without its leading decoder_start_token_id; the generation "
            "config's processors apply (bad_words_ids [[pad]], forced_eos_token_id at the last "
            "position); *_text: tokenizer.decode(ids, skip_special_tokens=True); beam_score: "
            "generate()'s sequences_scores"
        ),
        "greedy_log_probs": (
            "greedy_log_probs[t] = log_softmax(logits)[greedy_ids[t]] with decoder_input_ids "
            "[decoder_start_token_id] + greedy_ids[:t], float64 from the float32 logits, no "
            "processors"
        ),
        "decoder_start_token_id": start_id,
        "eos_token_id": model.config.eos_token_id,
        "pad_token_id": model.config.pad_token_id,
        "sentences": sentences,
    }


def write_json(path, value):
    with open(path, "w", encoding="utf-8") as file:
        json.dump(value, file, ensure_ascii=False, indent=1)
        file.write("\n")


def make_variant(out_dir, variant, pairs):
    """Makes OUT_DIR/NAME in OUT_DIR/NAME.tmp, then renames it: a directory of that name is
    always complete. Returns the one-line summary."""
    started = time.monotonic()
    final, directory = out_dir / variant.name, out_dir / f"{variant.name}.tmp"
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    tokenizer = write_tokenizer(directory, variant, pairs)
    target_vocab_size = len(tokenizer.target_encoder) if variant.is_separate else None
    model = make_model(variant, len(tokenizer.encoder), target_vocab_size, tokenizer.pad_token_id)
    save_model(model, directory, variant)
    reference = make_reference(directory, variant, pairs)
    write_json(directory / "reference.json", reference)
    shutil.rmtree(final, ignore_errors=True)
    directory.rename(final)
    sentences = reference["sentences"]
    greedy = [s["greedy_ids"] for s in sentences]
    ended_early = sum(len(ids) < MAX_NEW_TOKENS for ids in greedy)
    vocab = f"{len(tokenizer.encoder)}" + (f"+{target_vocab_size}" if target_vocab_size else "")
    return (
        f"{variant.name}: {final} ({', '.join(sorted(p.name for p in final.iterdir()))}); "
        f"vocab {vocab}, {len(sentences)} sentences, {len(set(map(tuple, greedy)))} distinct "
        f"greedy outputs, {ended_early} ended before {MAX_NEW_TOKENS} tokens; "
        f"{time.monotonic() - started:.1f} s"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path, help="where the variant directories go")
    parser.add_argument("--variant", choices=sorted(VARIANTS), help="only this one (default: all)")
    args = parser.parse_args()
    # Same files every run (an operation without a deterministic kernel would raise); one thread
    # is plenty for these sizes and leaves CI's cores alone.
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    # Loading problems are checked (load_model); the rest of transformers' log is noise here.
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    # MarianTokenizer recommends sacremoses for a normaliser that encoding never calls.
    warnings.filterwarnings("ignore", message="Recommended: pip install sacremoses")
    names = [args.variant] if args.variant else list(VARIANTS)
    try:
        pairs = read_corpus()
        for name in names:
            print(make_variant(args.out_dir, VARIANTS[name], pairs), flush=True)
    except FixtureError as error:
        print(f"make_marian_fixture: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
