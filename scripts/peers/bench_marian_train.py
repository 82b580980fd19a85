"""transformers' half of the fine-tuning comparison of scripts/peers/bench-marian.sh:
`bench_marian.py hf-train`.

Fine-tunes the MarianMTModel directory on the pairs of a TSV file, in the file's order (the script
shuffles it once, with a fixed seed), batches of --batch-size pairs, --warmup untimed steps, then
--steps timed ones; reports target tokens per second, counting each label that is not padding
(the target pieces and </s>), as nmt bench train counts its target tokens.

    --trainer seq2seq   Seq2SeqTrainer (needs accelerate), use_cpu, bf16 for --precision bf16
    --trainer loop      a plain loop: forward, label-smoothed cross-entropy, backward, gradient
                        clipping, AdamW, under torch.autocast(bfloat16) for --precision bf16

Both have nmt's fine-tuning settings of the comparison: Adam (AdamW without weight decay) at a
constant learning rate of 1e-4, label smoothing 0.1, gradient norm clipped at 1, dropout 0.1 (the
model's), no warm-up of the learning rate.
"""

import json
import resource
import sys
import tempfile
import time

import torch
import transformers
from transformers import DataCollatorForSeq2Seq, MarianMTModel, MarianTokenizer

from bench_marian import read_pairs

LEARNING_RATE = 1e-4
LABEL_SMOOTHING = 0.1
CLIP_NORM = 1.0
MAX_LENGTH = 256  # nmt's data.max_length: Tatoeba sentences are far shorter
SEED = 23


def encoded_examples(tokenizer, tsv, count):
    """The first `count` pairs of the TSV as tokenised examples (input_ids, labels with </s>)."""
    pairs = read_pairs(tsv)
    if len(pairs) < count:
        raise SystemExit(f"bench_marian: {tsv} has {len(pairs)} pairs, {count} are needed")
    pairs = pairs[:count]
    encoded = tokenizer(
        [english for english, _ in pairs],
        text_target=[spanish for _, spanish in pairs],
        truncation=True,
        max_length=MAX_LENGTH,
    )
    return [
        {"input_ids": encoded["input_ids"][i], "attention_mask": encoded["attention_mask"][i],
         "labels": encoded["labels"][i]}
        for i in range(count)
    ]


def timed_tokens(examples, args):
    """Target tokens (labels, </s> included) of the timed steps' batches."""
    first = args.warmup * args.batch_size
    return sum(len(e["labels"]) for e in examples[first:first + args.steps * args.batch_size])


class StepClock(transformers.TrainerCallback):
    """Seconds from the end of the last warm-up step to the end of the last timed step."""

    def __init__(self, warmup, steps):
        self.warmup, self.last = warmup, warmup + steps
        self.start = self.seconds = None

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step == self.warmup:
            self.start = time.perf_counter()
        elif state.global_step == self.last:
            self.seconds = time.perf_counter() - self.start


def train_seq2seq(model, tokenizer, examples, args):
    try:
        import accelerate  # noqa: F401 (Seq2SeqTrainingArguments needs it)
    except ImportError:
        raise SystemExit("bench_marian: Seq2SeqTrainer needs accelerate, which .venv/hf lacks")
    from transformers import Seq2SeqTrainer, Seq2SeqTrainingArguments

    clock = StepClock(args.warmup, args.steps)
    with tempfile.TemporaryDirectory() as output_dir:
        training_arguments = Seq2SeqTrainingArguments(
            output_dir=output_dir,
            use_cpu=True,
            bf16=args.precision == "bf16",
            per_device_train_batch_size=args.batch_size,
            max_steps=args.warmup + args.steps,
            learning_rate=LEARNING_RATE,
            lr_scheduler_type="constant",
            weight_decay=0.0,
            label_smoothing_factor=LABEL_SMOOTHING,
            max_grad_norm=CLIP_NORM,
            train_sampling_strategy="sequential",
            dataloader_num_workers=0,
            save_strategy="no",
            logging_strategy="no",
            report_to="none",
            disable_tqdm=True,
            seed=SEED,
        )
        trainer = Seq2SeqTrainer(
            model=model,
            args=training_arguments,
            train_dataset=examples,
            data_collator=DataCollatorForSeq2Seq(tokenizer, model=model),
            callbacks=[clock],
        )
        trainer.train()
    return clock.seconds


def train_loop(model, tokenizer, examples, args):
    collate = DataCollatorForSeq2Seq(tokenizer, model=model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=0.0)
    model.train()
    start = None
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            start = time.perf_counter()
        batch = collate(examples[step * args.batch_size:(step + 1) * args.batch_size])
        labels = batch.pop("labels")
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.precision == "bf16"):
            logits = model(**batch).logits
        loss = torch.nn.functional.cross_entropy(
            logits.float().view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100,
            label_smoothing=LABEL_SMOOTHING)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP_NORM)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    return time.perf_counter() - start


def hf_train(args):
    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    tokenizer = MarianTokenizer.from_pretrained(args.model)
    model = MarianMTModel.from_pretrained(args.model, dtype=torch.float32)
    examples = encoded_examples(tokenizer, args.tsv, (args.warmup + args.steps) * args.batch_size)
    train = train_seq2seq if args.trainer == "seq2seq" else train_loop
    seconds = train(model, tokenizer, examples, args)
    tokens = timed_tokens(examples, args)
    result = {
        "engine": f"transformers {transformers.__version__} (torch {torch.__version__})",
        "trainer": "Seq2SeqTrainer" if args.trainer == "seq2seq" else "plain loop",
        "precision": args.precision,
        "threads": torch.get_num_threads(),
        "batch_size": args.batch_size,
        "steps": args.steps,
        "warmup": args.warmup,
        "seconds": seconds,
        "tgt_tokens_per_s": tokens / seconds,
        "tgt_tokens_per_step": tokens / args.steps,
        "ms_per_step": 1000 * seconds / args.steps,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,  # KiB
    }
    with open(args.json, "w", encoding="utf-8") as file:
        json.dump(result, file, indent=2)
        file.write("\n")
    print(f"bench_marian: {result['trainer']} {args.precision}: "
          f"{result['tgt_tokens_per_s']:.1f} target tokens/s", file=sys.stderr)
