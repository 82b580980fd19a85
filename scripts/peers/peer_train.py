#!/usr/bin/env python3
"""Runs a peer toolkit's own training, ending it cleanly at a wall-clock deadline or after a
number of updates, and logs every update (one JSON line: step, time, real target tokens).

  peer_train.py onmt --deadline T --max-steps N --step-log F [--threads 2] -- -config C.yaml
  peer_train.py joey --deadline T --max-steps N --step-log F [--threads 2] -- C.yaml

Runs inside the peer's environment (.venv/onmt, .venv/joey) and imports nothing but the peer,
torch and the standard library. --deadline is absolute (seconds since the epoch, set by the
caller at launch, so start-up and data loading count); 0 = none. --max-steps 0 = no limit.

How each toolkit is stopped, so that it writes its usual final checkpoint:
  onmt: Trainer.train iterates over Trainer._accum_batches (one item per update); the wrapper
        ends that generator, the loop ends as at train_steps, and OpenNMT-py saves
        model_step_N.pt as it does at the end of every training.
  joey: TrainManager.train_and_validate calls _train_step once per update (batch_multiplier 1)
        and saves latest.ckpt when a KeyboardInterrupt ends training; the wrapper raises one at
        the next update's start.
The log's t_end of update k is the time the next update begins (joey) or the time the trainer
asks for the next batch (onmt); tgt_tokens are the batch's real target tokens (y and </s>, no
<s>, no padding), padded_tgt_tokens its target tensor's size.
"""
import argparse
import json
import resource
import sys
import time


class StepLog:
    def __init__(self, path, deadline, max_steps):
        self.file = open(path, "w", buffering=1)
        self.deadline = deadline
        self.max_steps = max_steps
        self.steps = 0
        self.stop_reason = None

    def should_stop(self):
        if self.max_steps and self.steps >= self.max_steps:
            self.stop_reason = f"max_steps {self.max_steps}"
        elif self.deadline and time.time() >= self.deadline:
            self.stop_reason = "deadline"
        return self.stop_reason is not None

    def write(self, record):
        self.file.write(json.dumps(record) + "\n")

    def step_done(self, t_end, tokens, padded, src_tokens, sentences):
        self.steps += 1
        self.write({"step": self.steps, "t_end": t_end, "tgt_tokens": tokens,
                    "padded_tgt_tokens": padded, "src_tokens": src_tokens,
                    "sentences": sentences})

    def close(self):
        rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        self.write({"event": "end", "steps": self.steps, "stop": self.stop_reason,
                    "time": time.time(), "max_rss_mib": round(rss_mib, 1)})
        self.file.close()


def run_onmt(log, tool_args):
    import onmt.trainer
    from onmt.bin import train as onmt_train

    original = onmt.trainer.Trainer._accum_batches

    def accum_batches(self, iterator):
        for batches, normalization in original(self, iterator):
            if log.should_stop():
                print(f"peer_train: stopping OpenNMT-py after {log.steps} updates "
                      f"({log.stop_reason})", flush=True)
                return
            pad = self.train_loss.padding_idx
            targets = [b["tgt"][:, 1:, 0] for b in batches]  # without <s>
            tokens = sum(int(t.ne(pad).sum()) for t in targets)
            padded = sum(t.numel() for t in targets)
            src_tokens = sum(int(b["srclen"].sum()) for b in batches)
            sentences = sum(len(b["tgt"]) for b in batches)
            yield batches, normalization
            log.step_done(time.time(), tokens, padded, src_tokens, sentences)

    onmt.trainer.Trainer._accum_batches = accum_batches
    sys.argv = ["onmt_train"] + tool_args
    onmt_train.main()


def run_joey(log, tool_args):
    import joeynmt.training
    from joeynmt import __main__ as joey_main

    original = joeynmt.training.TrainManager._train_step
    pending = {}

    def train_step(self, batch):
        now = time.time()
        if pending:
            log.step_done(now, **pending)
            pending.clear()
        if log.should_stop():
            print(f"peer_train: stopping JoeyNMT after {log.steps} updates ({log.stop_reason})",
                  flush=True)
            raise KeyboardInterrupt
        pad = self.model.pad_index
        pending.update(tokens=int(batch.ntokens), padded=batch.trg.numel(),
                       src_tokens=int(batch.src.ne(pad).sum()), sentences=int(batch.nseqs))
        return original(self, batch)

    joeynmt.training.TrainManager._train_step = train_step
    if len(tool_args) != 1:
        sys.exit("peer_train: joey takes one argument after --: the configuration file")
    sys.argv = ["joeynmt", "train", tool_args[0], "--skip-test"]
    joey_main.main()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tool", choices=["onmt", "joey"])
    parser.add_argument("--deadline", type=float, default=0.0)
    parser.add_argument("--max-steps", type=int, default=0)
    parser.add_argument("--step-log", required=True)
    parser.add_argument("--threads", type=int, default=2)
    argv = sys.argv[1:]
    if "--" not in argv:
        parser.error("the toolkit's own arguments follow --")
    split = argv.index("--")
    args = parser.parse_args(argv[:split])
    tool_args = argv[split + 1:]

    import torch

    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    log = StepLog(args.step_log, args.deadline, args.max_steps)
    log.write({"event": "start", "tool": args.tool, "time": time.time(),
               "torch": torch.__version__, "threads": torch.get_num_threads()})
    try:
        (run_onmt if args.tool == "onmt" else run_joey)(log, tool_args)
    finally:
        log.close()


if __name__ == "__main__":
    main()
