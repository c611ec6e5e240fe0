"""Measuring one row (bench/measure.c's pb_measure_point)."""

import time

from peerslib.plan import work
from peerslib.stats import GO_ON, Noise, TIMEOUT, median_ci, multimodal, stopping_check, summarise


class CheckFailed(Exception):
    pass


def measure_row(be, op, settings, row):
    """Warm-up, then samples until the stopping rule says so, each refreshed
    (untimed), timed (be.time_one: flush, hold, events) and checked."""
    row["status"] = "ERROR"
    samples, walls = [], []
    try:
        for _ in range(settings["warmup"]):
            op.refresh()
            op.run()
            be.sync()
            op.remember()
        z = Noise()
        start = time.monotonic()
        stop, k = GO_ON, 0
        while stop == GO_ON:
            c0 = time.monotonic()
            op.refresh()
            row["check_s"] += time.monotonic() - c0
            ms, wall = be.time_one(op, settings)
            samples.append(ms)
            walls.append(wall)
            z.add(ms)
            c0 = time.monotonic()
            try:
                op.check()
            except CheckFailed as e:
                row["check_s"] += time.monotonic() - c0
                row["failed_sample"] = k
                row["status"] = "FAILED"
                row["message"] = "verification, sample %d: %s" % (k, e)
                break
            row["check_s"] += time.monotonic() - c0
            k += 1
            stop = stopping_check(settings, z, time.monotonic() - start)
        if stop != GO_ON:
            row["status"] = "ok"
        row["timed_out"] = stop == TIMEOUT
        row["noise"] = z.value()
    except KeyboardInterrupt:
        raise
    except Exception as e:  # a library's error: the row could not be measured
        row["status"] = "ERROR"
        row["message"] = "%s: %s" % (type(e).__name__, str(e).split("\n")[0][:400])
        row["noise"] = Noise().value() if not samples else _noise_of(samples)
    row["samples_ms"], row["samples_wall_ms"] = samples, walls
    row["held"] = be.last_held
    return row


def _noise_of(x):
    z = Noise()
    for v in x:
        z.add(v)
    return z.value()


def finish_row(row, inst, max_noise_pct):
    """The row's statistics and rates from its samples, as permbench's."""
    n, s = row["samples_ms"], None
    row["noisy"], row["multimodal"], row["ci"] = False, False, None
    if n:
        x = sorted(n)
        row["ci"] = median_ci(x)
        row["noisy"] = len(n) > 1 and row["ci"][2] > max_noise_pct / 100.0
        row["multimodal"] = multimodal(x)
        s = summarise(n)
        w = summarise(row["samples_wall_ms"])
        row["ms"], row["wall"] = s, w
        items, nbytes = work(inst, row["n"], row["item_bytes"])
        sec = s["median"] * 1e-3
        row["items_per_s"] = items / sec if sec > 0 else 0.0
        row["effective_gbps"] = nbytes / sec / 1e9 if sec > 0 else 0.0
    row["verified"] = row["status"] == "ok"
    return row
