"""The random MarianMTModel of scripts/peers/bench-marian.sh: `bench_marian.py make-model`.

A model with the shape of an OPUS-MT model (full: d_model 512, 6+6 layers, 8 heads, FFN 2048,
swish, scaled embeddings, one shared vocabulary with shared and tied embeddings, 58,101 entries;
quick: d_model 64, 2+2 layers, 4 heads, FFN 256, 8,000 entries), saved by the real transformers
in the hub's layout. Its tokenizers are SentencePiece models trained on the Tatoeba pairs, its
vocabulary Marian's order (</s> 0, <unk> 1, the pieces, <pad> last), padded with unused pieces up
to the full size so that the embedding and the output layer have the real size. The weights are
those of tests/import/make_marian_fixture.py's randomize_, except for:
  - the <pad> row, zero as OPUS-MT's: CTranslate2 starts the decoder from a zero embedding
    (start_from_zero_embedding) instead of reading that row;
  - final_logits_bias, -30 for the unused pieces, which are then never generated (every system
    still computes their logits);
  - an "</s> clock" (install_eos_clock). A random model ends its outputs at random: with an </s>
    bias alone, greedy decoding here either ends at once or never (it falls into a loop of one
    token), and batches run to the length limit. The clock makes </s>'s logit grow with the
    output position, so that outputs end after about as many tokens as the sources have (the
    bias is calibrated for that), as a trained model's do; each sentence's end moves a few
    tokens either way with its source, though not with the source's length.
"""

import random
import shutil
import sys
import time
from pathlib import Path

import torch
import transformers
from transformers import GenerationConfig, MarianConfig, MarianMTModel, MarianTokenizer

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "import"))
import make_marian_fixture as fixture  # noqa: E402 (found through the path set above)
from bench_marian import read_pairs  # noqa: E402

SHAPES = {
    "full": {"d_model": 512, "layers": 6, "heads": 8, "ffn": 2048, "vocab_size": 58101,
             "spm_pieces": 8000},
    "quick": {"d_model": 64, "layers": 2, "heads": 4, "ffn": 256, "vocab_size": 8000,
              "spm_pieces": 2000},
}
SEED = 20240601
UNUSED_BIAS = -30.0
CALIBRATION_SENTENCES = 64
CALIBRATION_STEPS = 12
MAX_NEW_TOKENS = 65  # 64 tokens and </s>
# The clock reads the decoder's sinusoid features that grow or shrink steadily over the first
# CLOCK_SPAN output positions; CLOCK_GAIN is the length of </s>'s embedding row along them (how
# fast its logit grows with the position); CLOCK_LEAK is the share of its random weights the
# decoder's cross-attention keeps on them, through which the source moves the end (the spread of
# the output lengths: about 5 to 12 tokens for 8 on average at full size).
CLOCK_SPAN = 40
CLOCK_GAIN = 6.0
CLOCK_LEAK = 0.6


def shared_vocab(source_spm, target_spm, size):
    """vocab.json of one shared vocabulary of `size` entries: the source pieces, the target pieces
    not among them, then unused pieces up to the size (<pad> last)."""
    source = fixture.normal_pieces(source_spm)
    seen = set(source)
    pieces = source + [piece for piece in fixture.normal_pieces(target_spm) if piece not in seen]
    real = len(pieces)
    seen.update(pieces)
    number = 0
    while len(pieces) < size - 3:  # </s>, <unk> and <pad> complete the size
        unused = f"<unused{number}>"
        number += 1
        if unused not in seen:
            pieces.append(unused)
    if len(pieces) != size - 3:
        raise SystemExit(f"bench_marian: {len(pieces) + 3} real entries, more than {size}")
    return fixture.marian_vocab(pieces), real + 2  # ids below real + 2 are </s>, <unk>, pieces


def write_tokenizer(directory, pairs, shape):
    """Writes source.spm, target.spm, vocab.json and the tokenizer's own files; returns the
    tokenizer and the number of real entries at the start of the vocabulary."""
    pieces = shape["spm_pieces"]
    source_spm = fixture.train_spm([english for english, _ in pairs], pieces, threads=2)
    target_spm = fixture.train_spm([spanish for _, spanish in pairs], pieces, threads=2)
    vocab, real_entries = shared_vocab(source_spm, target_spm, shape["vocab_size"])
    (directory / "source.spm").write_bytes(source_spm)
    (directory / "target.spm").write_bytes(target_spm)
    fixture.write_json(directory / "vocab.json", vocab)
    tokenizer = MarianTokenizer(
        source_spm=str(directory / "source.spm"),
        target_spm=str(directory / "target.spm"),
        vocab=str(directory / "vocab.json"),
        source_lang="en",
        target_lang="es",
    )
    tokenizer.save_pretrained(directory)
    return tokenizer, real_entries


def make_model(shape, pad_id, real_entries):
    """The random model with OPUS-MT's settings (dropout 0.1, generation config), </s> unbiased."""
    config = MarianConfig(
        vocab_size=shape["vocab_size"],
        share_encoder_decoder_embeddings=True,
        tie_word_embeddings=True,
        d_model=shape["d_model"],
        encoder_layers=shape["layers"],
        decoder_layers=shape["layers"],
        encoder_attention_heads=shape["heads"],
        decoder_attention_heads=shape["heads"],
        encoder_ffn_dim=shape["ffn"],
        decoder_ffn_dim=shape["ffn"],
        activation_function="swish",
        scale_embedding=True,
        max_position_embeddings=512,
        dropout=0.1,
        attention_dropout=0.0,
        activation_dropout=0.0,
        pad_token_id=pad_id,
        decoder_start_token_id=pad_id,
        eos_token_id=0,
        forced_eos_token_id=0,
    )
    model = MarianMTModel(config)
    fixture.randomize_(model, torch.Generator().manual_seed(SEED), eos_bias=0.0)
    with torch.no_grad():
        model.get_input_embeddings().weight[pad_id].zero_()
        model.final_logits_bias[0, real_entries:] = UNUSED_BIAS
    model.generation_config = GenerationConfig(
        num_beams=4,
        max_length=512,
        bad_words_ids=[[pad_id]],
        pad_token_id=pad_id,
        decoder_start_token_id=pad_id,
        eos_token_id=0,
        forced_eos_token_id=0,
    )
    return model.eval()


def clock_direction(model):
    """(R, u): the dimensions whose sinusoid position feature is monotone over the first
    CLOCK_SPAN positions, and a unit vector over them, summing to zero, whose dot product with the
    position feature grows with the position."""
    positions = model.model.decoder.embed_positions.weight[: CLOCK_SPAN + 1]
    change = positions[-1] - positions[0]
    steps = positions[1:] - positions[:-1]
    monotone = ((steps * change.sign()) >= 0).all(0) & (change.abs() > 0.2)
    dims = monotone.nonzero().flatten()
    u = torch.zeros_like(change)
    u[dims] = change[dims] - change[dims].mean()  # zero sum: LayerNorm's centring leaves u alone
    return dims, u / u.norm()


def install_eos_clock(model, eos_id, batch):
    """Keeps the position features on R as they enter the decoder up to its output, where </s>'s
    row reads them: no token embedding writes to R, no decoder sublayer either but the
    cross-attention, at CLOCK_LEAK of its weights; the decoder's LayerNorms leave R unshifted and
    scale it back by the standard deviation they divide by (measured on `batch`, a dict of
    encoder inputs). Every other weight stays random."""
    dims, u = clock_direction(model)
    decoder = model.model.decoder
    norms = [m for m in decoder.modules() if isinstance(m, torch.nn.LayerNorm)]
    with torch.no_grad():
        embedding = model.get_input_embeddings().weight
        embedding[:, dims] = 0
        embedding[eos_id] = CLOCK_GAIN * u
        for name, linear in decoder.named_modules():
            if name.endswith("out_proj") or name.endswith("fc2"):
                kept = CLOCK_LEAK if name.endswith("encoder_attn.out_proj") else 0.0
                linear.weight[dims] *= kept
                linear.bias[dims] *= kept
        for norm in norms:
            norm.weight[dims] = 1
            norm.bias[dims] = 0
    for _ in range(2):  # the second pass sees the scales the first one set
        for norm, deviation in zip(norms, layer_norm_deviations(model, norms, batch)):
            with torch.no_grad():
                norm.weight[dims] = deviation


def layer_norm_deviations(model, norms, batch):
    """The median standard deviation each LayerNorm of `norms` divides by, teacher-forcing random
    target tokens (the start token first) after `batch`."""
    seen = {norm: [] for norm in norms}

    def record(norm, inputs, output):
        x = inputs[0]
        seen[norm].append((x.var(-1, unbiased=False) + norm.eps).sqrt().flatten())

    hooks = [norm.register_forward_hook(record) for norm in norms]
    generator = torch.Generator().manual_seed(SEED)
    targets = torch.randint(2, model.config.vocab_size - 1, (len(batch["input_ids"]), 16),
                            generator=generator)
    targets[:, 0] = model.config.decoder_start_token_id
    with torch.no_grad():
        model(**batch, decoder_input_ids=targets)
    for hook in hooks:
        hook.remove()
    return [torch.cat(seen[norm]).median() for norm in norms]


def mean_greedy_length(model, batches):
    """Mean greedy output length in tokens (without </s>) over the encoded batches."""
    lengths = []
    with torch.inference_mode():
        for batch in batches:
            out = model.generate(**batch, num_beams=1, do_sample=False,
                                 max_new_tokens=MAX_NEW_TOKENS)
            for row in out[:, 1:].tolist():
                lengths.append(row.index(0) if 0 in row else len(row))
    return sum(lengths) / len(lengths)


def calibrate_eos(model, tokenizer, sources):
    """Moves </s>'s bias by bisection until the mean greedy output length is the mean source
    length (in pieces, without </s>), and keeps the closest bias tried. Returns (bias, output
    length, source length)."""
    encoded = [tokenizer(sources[i:i + 32], return_tensors="pt", padding=True)
               for i in range(0, len(sources), 32)]
    target = sum(int(b.attention_mask.sum()) - len(b.input_ids) for b in encoded) / len(sources)
    low, high = -40.0, 40.0
    bias = model.final_logits_bias[0, 0].item()
    tried = []
    for _ in range(CALIBRATION_STEPS):
        middle = (low + high) / 2
        with torch.no_grad():
            model.final_logits_bias[0, 0] = bias + middle
        length = mean_greedy_length(model, encoded)
        tried.append((abs(length - target), middle, length))
        print(f"bench_marian: </s> bias {middle:+.2f}: mean greedy output {length:.1f} tokens "
              f"(sources {target:.1f})", file=sys.stderr, flush=True)
        low, high = (middle, high) if length > target else (low, middle)
    _, middle, length = min(tried)
    with torch.no_grad():
        model.final_logits_bias[0, 0] = bias + middle
    return bias + middle, length, target


def make_model_directory(args):
    """Makes args.out in args.out.tmp, then renames it: a directory of that name is complete."""
    started = time.monotonic()
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    shape = SHAPES[args.size]
    final, directory = Path(args.out), Path(args.out + ".tmp")
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    pairs = read_pairs(args.tsv)
    tokenizer, real_entries = write_tokenizer(directory, pairs, shape)
    model = make_model(shape, tokenizer.pad_token_id, real_entries)
    sources = [english for english, _ in random.Random(SEED).sample(pairs, CALIBRATION_SENTENCES)]
    install_eos_clock(model, tokenizer.eos_token_id,
                      tokenizer(sources[:32], return_tensors="pt", padding=True))
    eos_bias, output_length, source_length = calibrate_eos(model, tokenizer, sources)
    model.save_pretrained(directory)
    info = {
        "size": args.size,
        "shape": shape,
        "corpus": str(args.tsv),
        "vocab_entries": len(tokenizer.encoder),
        "real_entries": real_entries,
        "unused_bias": UNUSED_BIAS,
        "eos_bias": eos_bias,
        "eos_clock": f"gain {CLOCK_GAIN} over the position features monotone on the first "
                     f"{CLOCK_SPAN} positions",
        "calibration": f"{CALIBRATION_SENTENCES} random sentences of the corpus (seed {SEED}): "
                       f"mean greedy output {output_length:.1f} tokens, mean source "
                       f"{source_length:.1f} pieces (both without </s>)",
        "parameters": sum(p.numel() for p in model.parameters()),
    }
    fixture.write_json(directory / "bench-model.json", info)
    fixture.load_model(directory)  # refuses a directory that does not load back cleanly
    shutil.rmtree(final, ignore_errors=True)
    directory.rename(final)
    print(f"bench_marian: {final}: {info['parameters']:,} parameters, {info['vocab_entries']:,} "
          f"vocabulary entries ({real_entries:,} real), {info['calibration']}; "
          f"{time.monotonic() - started:.0f} s", file=sys.stderr)
