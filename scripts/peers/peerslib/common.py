"""What every part of peers.py shares: its exit statuses, its name and the
source root, permbench's CSV columns, and the two exceptions that end a
command with one line on stderr."""

import os


EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_SKIP, EXIT_INTERRUPTED = 0, 1, 2, 77, 130
PROG = "peers"
# scripts/peers/, this package's parent
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(HERE))

# permbench's results.csv columns, in order (bench/results_csv.c).
CSV_COLUMNS = [
    "label", "series", "axis", "axis_value", "module", "family", "device", "n", "item_bytes",
    "threads", "samples", "median_ms", "min_ms", "max_ms", "mean_ms", "stddev_ms",
    "wall_median_ms", "noise_pct", "noisy", "items_per_s", "effective_gbps", "pct_of_copy",
    "speedup_vs_ref", "verified", "status", "link_bytes", "link_gbps",
    "median_ci_lo_ms", "median_ci_hi_ms", "median_ci_halfwidth_pct", "multimodal", "busy", "suspect",
    "path",
]
# Before link_bytes and link_gbps were appended, and before the median's
# interval, busy, suspect and path were: base runs of an older permbench,
# which merge still takes.
CSV_COLUMNS_OLD = CSV_COLUMNS[:CSV_COLUMNS.index("status") + 1]
CSV_COLUMNS_LINKS = CSV_COLUMNS[:CSV_COLUMNS.index("link_gbps") + 1]
# A run over several seeds (`seeds` in [sweep]) appends these
# (bench/results_csv.c, pb_csv_seed_columns).
CSV_SEED_COLUMNS = ["seeds", "seed_min_ms", "seed_max_ms", "seed_spread_pct"]


class Bad(Exception):
    """Bad input: one line on stderr, exit 2."""


class Skip(Exception):
    """Nothing to do: one line on stderr, exit 77."""
