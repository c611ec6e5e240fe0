#!/usr/bin/env python3
"""make-keys.py: a key file for `dist = file:PATH` (docs/configs.md), with the
Python standard library alone (a GPU node may have no numpy).

    scripts/make-keys.py OUT --count N [--dist DIST] [--seed S]

OUT gets N raw little-endian 32-bit keys, no header: what top-k (fp32 or
u32 by the module's dtype) and multisplit (u32 keys) read. N is a number or
a power like 2^24. DIST:

  uniform   fp32 U[0, 1)
  normal    fp32 N(0, 1)
  special   fp32 with every hard case of the top-k contract: of each 16
            keys, two NaNs (quiet and signalling payloads, both signs), +inf,
            -inf, three ties at 0.5, -0.0, +0.0, the rest U[-1000, 1000)
  u32       u32 uniform over [0, 2^32)

The same N, DIST and seed give the same bytes on every machine (Python's
Mersenne Twister). The file is written under a temporary name and renamed
when whole; its size and SHA-256 are printed, the digest that results.json
records in provenance.data_files.
"""
import argparse
import array
import hashlib
import os
import random
import sys


def count_arg(text):
    """A count: decimal, or BASE^EXP (2^24)."""
    try:
        if "^" in text:
            base, exp = text.split("^")
            n = int(base) ** int(exp)
        else:
            n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a count (a number or a power like 2^24)")
    if not 1 <= n <= 1 << 32:
        raise argparse.ArgumentTypeError(f"{text}: a count is 1 .. 2^32")
    return n


def float_bits(values):
    """fp32 bit patterns of the values (rounded to nearest) as unsigned ints."""
    f = array.array("f", values)
    bits = array.array("I")
    bits.frombytes(f.tobytes())
    return bits


def keys(dist, n, rng):
    if dist == "uniform":
        return float_bits(rng.random() for _ in range(n))
    if dist == "normal":
        return float_bits(rng.gauss(0.0, 1.0) for _ in range(n))
    if dist == "u32":
        return array.array("I", (rng.getrandbits(32) for _ in range(n)))
    # special: the spread first, then the hard cases over it.
    bits = float_bits(rng.uniform(-1000.0, 1000.0) for _ in range(n))
    fixed = {2: 0x7F800000, 3: 0xFF800000, 4: 0x3F000000, 5: 0x3F000000, 6: 0x3F000000,
             7: 0x80000000, 8: 0x00000000}
    for i in range(0, n, 16):
        payload = i & 0x3FFFFF
        if i < n:
            bits[i] = 0x7FC00000 | payload  # quiet NaN, +
        if i + 1 < n:
            bits[i + 1] = 0xFF800000 | payload | 1  # signalling NaN, -
        for r, v in fixed.items():
            if i + r < n:
                bits[i + r] = v
    return bits


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="the key file to write")
    ap.add_argument("--count", type=count_arg, required=True, help="keys: N or BASE^EXP")
    ap.add_argument("--dist", choices=["uniform", "normal", "special", "u32"], default="uniform")
    ap.add_argument("--seed", type=int, default=16)
    a = ap.parse_args()
    if array.array("I").itemsize != 4:
        sys.exit("make-keys.py: this Python's unsigned int is not 32 bits")
    bits = keys(a.dist, a.count, random.Random(a.seed))
    if sys.byteorder == "big":
        bits.byteswap()
    data = bits.tobytes()
    d = os.path.dirname(os.path.abspath(a.out))
    os.makedirs(d, exist_ok=True)
    tmp = f"{a.out}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, a.out)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        sys.exit(f"make-keys.py: {e}")
    print(f"{a.out}: {a.count} keys ({a.dist}, seed {a.seed}), {len(data)} bytes, "
          f"sha256 {hashlib.sha256(data).hexdigest()}")


if __name__ == "__main__":
    main()
