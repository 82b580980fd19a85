#!/usr/bin/env python3
"""Run the reference notebook script (seed_transformer.py) for a fixed wall-clock training budget.

The reference stops only after a number of steps or epochs. To compare nmt with the notebook
"trained for the same wall time", this wrapper imports the reference unchanged and ends its
training batches once BUDGET seconds have passed since the first training batch; the reference
then runs its own end of training (--save, --translate) as usual. Give --epochs generously: an
epoch that starts after the deadline gets no batches (only the reference's validation pass).

  notebook_timed.py --budget 4963 --reference ../shared/reference/seed_transformer.py -- \
      --data train.tsv --epochs 4 --threads 2 --save notebook.pt --translate test.src --out test.hyp
"""
import argparse
import importlib.util
import json
import sys
import time


def load_reference(path):
    spec = importlib.util.spec_from_file_location("seed_transformer", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=float, required=True, help="training seconds, from the first batch")
    ap.add_argument("--reference", required=True, help="path of seed_transformer.py")
    ap.add_argument("reference_args", nargs=argparse.REMAINDER, help="-- then the reference's own arguments")
    a = ap.parse_args()
    args = a.reference_args[1:] if a.reference_args[:1] == ["--"] else a.reference_args

    reference = load_reference(a.reference)
    all_batches = reference.batches
    deadline = None
    stopped = False

    def budgeted_batches(pairs, batch_size, shuffle):
        # Only training shuffles; validation batches are never cut.
        nonlocal deadline, stopped
        if not shuffle:
            yield from all_batches(pairs, batch_size, shuffle)
            return
        if deadline is None:
            deadline = time.time() + a.budget
        for batch in all_batches(pairs, batch_size, shuffle):
            if time.time() >= deadline:
                if not stopped:
                    print(json.dumps({"phase": "budget", "seconds": a.budget, "stopped": "wall-clock budget spent"}),
                          flush=True)
                stopped = True
                return
            yield batch

    reference.batches = budgeted_batches
    sys.argv = [a.reference] + args
    return reference.main()


if __name__ == "__main__":
    sys.exit(main())
