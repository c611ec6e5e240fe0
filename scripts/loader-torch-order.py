#!/usr/bin/env python3
"""Dump PyTorch data loaders' epoch orders to .npy for `permbench quality --input`
(docs/loader-shuffles.md, "Gating your own loader's order").

Two loaders over the indices 0..n-1, `epochs` epochs each, one row an epoch:
  map      DataLoader(range(n), shuffle=True): a RandomSampler, uniform by design;
  buffer   torch's own shuffle buffer (torch.utils.data.datapipes.iter.Shuffler,
           the ShufflerIterDataPipe torchdata re-exports) of `--buffer` items
           over the indices in order, through a DataLoader.

  loader-torch-order.py --n 1000 --epochs 3000 --buffer 250 --out DIR
writes DIR/torch-map.npy and DIR/torch-buffer<B>.npy and prints torch's version.
"""
import argparse
import os
import sys

import numpy as np
import torch
from torch.utils.data import DataLoader


def epochs_of(loader, n, epochs):
    out = np.empty((epochs, n), dtype=np.int64)
    for e in range(epochs):
        row = np.fromiter((int(i) for i in loader), np.int64, n)
        out[e] = row
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--epochs", type=int, default=3000)
    ap.add_argument("--buffer", type=int, default=250)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    torch.manual_seed(2026)
    print(f"torch {torch.__version__}, numpy {np.__version__}, n = {a.n}, {a.epochs} epochs", flush=True)

    uniform = DataLoader(range(a.n), batch_size=None, shuffle=True)
    np.save(os.path.join(a.out, "torch-map.npy"), epochs_of(uniform, a.n, a.epochs))

    try:
        from torch.utils.data.datapipes.iter import IterableWrapper, Shuffler
    except ImportError as e:  # torch without datapipes: say so, keep the map-style file
        print(f"loader-torch-order: no torch datapipes ({e}): buffer loader skipped", file=sys.stderr)
        return 0
    pipe = Shuffler(IterableWrapper(range(a.n)), buffer_size=a.buffer)
    buffered = DataLoader(pipe, batch_size=None, shuffle=True)  # shuffle=True turns the Shuffler on
    np.save(os.path.join(a.out, f"torch-buffer{a.buffer}.npy"), epochs_of(buffered, a.n, a.epochs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
