"""Statistics and the stopping rule (stats/summary.c, bench/stopping.c)."""

import math


def summarise(x):
    """median, min, max, mean, stddev (n - 1; 0 for one sample)."""
    n = len(x)
    if n == 0:
        return None
    s = sorted(x)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2.0
    mean = math.fsum(s) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in s) / (n - 1)) if n > 1 else 0.0
    return {"median": med, "min": s[0], "max": s[-1], "mean": mean, "stddev": sd}


class Noise(object):
    """The running noise (relative standard deviation) of a row's samples,
    and its history: Welford's mean and sum of squares, as bench/stopping.c."""

    def __init__(self):
        self.n, self.mean, self.m2, self.measured, self.history = 0, 0.0, 0.0, 0.0, []

    def add(self, ms):
        self.n += 1
        d = ms - self.mean
        self.mean += d / self.n
        self.m2 += d * (ms - self.mean)
        self.measured += ms * 1e-3
        self.history.append(self.value())

    def value(self):
        if self.n < 2 or not self.mean > 0:
            return 0.0
        return math.sqrt(self.m2 / (self.n - 1)) / self.mean


GO_ON, QUIET, SETTLED, MAX, TIMEOUT = range(5)


def stopping_check(st, z, elapsed):
    """NVBench's criterion, as pb_stopping_check: once min_samples and
    min_time are reached, stop when the noise is at most max_noise or has
    settled (moved by under 5% over the last max(min_samples, 10) samples);
    max_samples and the timeout stop in any case."""
    if z.n >= st["min_samples"] and z.measured >= st["min_time_s"]:
        noise = z.value()
        if noise <= st["max_noise_pct"] / 100.0:
            return QUIET
        w = max(st["min_samples"], 10)
        if z.n >= 2 * w and abs(noise - z.history[z.n - 1 - w]) <= 0.05 * noise:
            return SETTLED
    if z.n >= st["max_samples"]:
        return MAX
    if elapsed >= st["timeout_s"]:
        return TIMEOUT
    return GO_ON
