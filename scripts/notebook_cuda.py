#!/usr/bin/env python3
"""Runs the reference notebook script (seed_transformer.py) unchanged on a CUDA device.

The script has no device option; with torch.set_default_device("cuda") every tensor and module it
creates lives on the GPU, as in the notebook run with .to("cuda") everywhere. Usage:
    python3 scripts/notebook_cuda.py PATH/seed_transformer.py [its arguments ...]
"""
import runpy
import sys

import torch


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if not torch.cuda.is_available():
        sys.exit("notebook_cuda.py: no CUDA device")
    torch.set_default_device("cuda")
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
