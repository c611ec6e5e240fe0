#!/usr/bin/env python3
"""Projects the distributed shuffle (docs/distributed.md) to G GPUs
of one host and to several hosts from the two-GPU measurements.

    scripts/dist-project.py RUN_DIR

RUN_DIR holds a gpu-dist-shuffle sweep (results.csv: rows of gpu-dist-shuffle at
devices 2, gpu-dist-exchange at devices 2 and gpu-bijective2) and phases/phases.log
(PB_DIST_PHASES=1 output), as results/reference/nvidia-h200-x2/dist-shuffle/.
From them it takes, per device: the split's time per item, gpu-bijective2's
time per item (the local shuffle), the link's rate per direction (the
exchange ceiling: each device sends half its slice), and the host's
overhead a sample (the sweep's median minus the phases' sum). The model of
one sample on G devices, n items of w bytes, m = n / G a device:

    T = split(m) + exchange + shuffle(m) + overhead
    exchange = (G - 1) / G * m * w / link            (one host, NVLink/NVSwitch)
             = max(intra, inter) or intra + inter    (H hosts of 8: the share
               bound for other hosts over the network at `net` bytes/s a GPU)

It prints markdown tables: strong scaling at the measured n, weak scaling
at 2^30 items a GPU. Standard library only."""
import csv
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))
from peerslib.names import canonical  # noqa: E402  (an older run's rows under the new names)


def load(run):
    """The sweep's rows, and the phases by (row label, n): the harness prints
    a row's line after its samples' phase lines."""
    rows = list(csv.DictReader(open(os.path.join(run, "dist-shuffle", "results.csv"))))
    phases, pending = {}, []
    for line in open(os.path.join(run, "phases", "phases.log")):
        m = re.match(r"dist phases n=(\d+) devices=(\d+) device (\d+): split ([\d.]+) ms, exchange ([\d.]+) ms, "
                     r"shuffle ([\d.]+) ms", line)
        if m:
            pending.append((int(m[1]), [float(m[4]), float(m[5]), float(m[6])]))
        elif pending and re.match(r"[A-Za-z0-9][^ ]* +gpu ", line):
            label = line.split()[0]
            for n, p in pending:
                phases.setdefault((label, n), []).append(p)
            pending = []
    return rows, phases


def median_row(rows, label, n):
    for r in rows:
        if canonical(r["label"]) == label and int(r["n"]) == n and r["status"] == "ok":
            return float(r["median_ms"])
    return None


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: dist-project.py RUN_DIR")
    rows, phases = load(sys.argv[1])
    n = 2 ** 31
    w = 8
    # The model adds the phases one after another: the one-piece row where
    # the run has it (pieces overlap the split and the exchange).
    label = next((l for l in ("dist-shuffle-2gpu-1piece", "dist-shuffle-2gpu") if (l, n) in phases), None)
    if not label:
        sys.exit("no 2-GPU phases at n = 2^31 in phases.log")
    ph = phases[(label, n)]
    split, exch, shuf = (statistics.median(p[i] for p in ph) for i in range(3))
    total2 = median_row(rows, label, n)
    ceiling = median_row(rows, "dist-exchange-2gpu", n)
    b2 = median_row(rows, "gpu-bijective2", 2 ** 30)
    m = n // 2
    split_per = split / m          # ms an item
    shuf_per = b2 / 2 ** 30        # gpu-bijective2, one GPU, ms an item
    link = (m / 2) * w / (ceiling * 1e-3)  # bytes/s a direction a GPU
    overhead = total2 - (split + exch + shuf)
    print(f"Inputs (from {sys.argv[1]}, {label}, n = 2^31 u64 on 2 GPUs): split {split:.2f} ms a device, "
          f"exchange {exch:.2f} ms, shuffle {shuf:.2f} ms, sample median {total2:.2f} ms "
          f"(overhead {overhead:.2f} ms); gpu-dist-exchange {ceiling:.2f} ms = {link / 1e9:.0f} GB/s a direction "
          f"a GPU; gpu-bijective2 at 2^30 on one GPU {b2:.2f} ms.\n")

    def one_host(G, n):
        m = n / G
        ex = (G - 1) / G * m * w / link * 1e3
        return split_per * m * (G > 1) + ex + shuf_per * m + overhead * (G > 1), ex

    def hosts(H, n, net, overlap):
        G = 8 * H
        m = n / G
        intra = (8 - 1) / G * m * w / link * 1e3
        inter = (H - 1) / H * m * w / net * 1e3
        ex = max(intra, inter) if overlap else intra + inter
        return split_per * m + ex + shuf_per * m + overhead, ex

    print("Strong scaling, n = 2^31 u64 (16 GiB) in all, one host (NVLink/NVSwitch at the measured rate):\n")
    print("| G | exchange ms | sample ms | vs 1 GPU |")
    print("|---|---|---|---|")
    t1 = shuf_per * n
    for G in (1, 2, 4, 8):
        t, ex = one_host(G, n)
        print(f"| {G} | {ex:.1f} | {t:.1f} | {t1 / t:.2f}x |")
    print("\nWeak scaling, 2^30 u64 a GPU; hosts of 8 GPUs, network 50 GB/s a GPU (400 Gb/s NIC each), "
          "inter- and intra-host traffic overlapped or not:\n")
    print("| GPUs | exchange ms (overlapped / not) | sample ms (overlapped / not) |")
    print("|---|---|---|")
    for G in (2, 8):
        t, ex = one_host(G, G * 2 ** 30)
        print(f"| {G} (one host) | {ex:.1f} | {t:.1f} |")
    for H in (2, 4, 16):
        a, exa = hosts(H, 8 * H * 2 ** 30, 50e9, True)
        b, exb = hosts(H, 8 * H * 2 ** 30, 50e9, False)
        print(f"| {8 * H} ({H} hosts) | {exa:.1f} / {exb:.1f} | {a:.1f} / {b:.1f} |")


if __name__ == "__main__":
    main()
