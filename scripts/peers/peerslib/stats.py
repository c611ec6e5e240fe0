"""Statistics and the stopping rule (stats/summary.c, stats/median_ci.c,
stats/multimodal.c, bench/stopping.c)."""

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


CI_EXACT_MAX = 1000  # PB_MEDIAN_CI_EXACT_MAX


def _binom_below(k, n):
    """P(B <= k - 1), B ~ Binomial(n, 1/2)."""
    return math.fsum(math.comb(n, i) for i in range(k)) / 2.0 ** n


def median_ci_ranks(n, level=0.95):
    """1-based ranks (lo, hi) of the median's interval and their confidence,
    as pb_median_ci_ranks: exact to CI_EXACT_MAX samples, then the normal
    approximation with continuity correction."""
    tail = (1 - level) / 2
    if n <= CI_EXACT_MAX:
        lo, hi = 1, (n + 1) // 2
        while lo < hi:
            mid = lo + (hi - lo + 1) // 2
            if _binom_below(mid, n) <= tail:
                lo = mid
            else:
                hi = mid - 1
        return lo, n + 1 - lo, 1 - 2 * _binom_below(lo, n)
    z = 1.959963984540054  # the standard normal's 97.5% quantile
    half = math.sqrt(n) / 2
    k = max(1, int(math.floor(n / 2.0 + 0.5 - z * half)))
    conf = 1 - 2 * 0.5 * math.erfc(-((k - 0.5 - n / 2.0) / half) / math.sqrt(2))
    return k, n + 1 - k, conf


def median_ci(sorted_x):
    """(lo, hi, relative half-width, confidence) of sorted samples."""
    n = len(sorted_x)
    lo, hi, conf = median_ci_ranks(n)
    med = (sorted_x[(n - 1) // 2] + sorted_x[n // 2]) / 2.0
    a, b = sorted_x[lo - 1], sorted_x[hi - 1]
    return a, b, ((b - a) / (2 * med) if med > 0 else 0.0), conf


def multimodal(sorted_x):
    """Two clusters of log-times, as pb_modes_of_sorted (stats/multimodal.h)."""
    n = len(sorted_x)
    m = max(3, int(math.ceil(0.1 * n)))
    if n < 2 * m or not sorted_x[0] > 0:
        return False
    y = [math.log(v) for v in sorted_x]
    steps = [y[i] - y[i - 1] for i in range(1, n) if y[i] > y[i - 1]]
    tick = min(min(steps) if steps else float("inf"), math.log(1.25))

    def sd(v):
        mu = math.fsum(v) / len(v)
        return math.sqrt(math.fsum((t - mu) ** 2 for t in v) / (len(v) - 1)) if len(v) > 1 else 0.0

    best = 0.0
    for i in range(m, n - m + 1):
        lo, up = y[:i], y[i:]
        spread = max(sd(lo), sd(up), tick)
        best = max(best, (math.fsum(up) / len(up) - math.fsum(lo) / len(lo)) / spread)
    return best >= 7.0


class Noise(object):
    """The running figures of a row's samples: the relative standard
    deviation (Welford's mean and sum of squares, reported) and the
    median's interval half-width (the history the rule judges), as
    bench/stopping.c."""

    def __init__(self):
        self.n, self.mean, self.m2, self.measured, self.history = 0, 0.0, 0.0, 0.0, []
        self.sorted = []

    def add(self, ms):
        self.n += 1
        d = ms - self.mean
        self.mean += d / self.n
        self.m2 += d * (ms - self.mean)
        self.measured += ms * 1e-3
        self.sorted.append(ms)
        self.sorted.sort()
        self.history.append(median_ci(self.sorted)[2])

    def halfwidth(self):
        return self.history[-1] if self.history else 0.0

    def value(self):
        if self.n < 2 or not self.mean > 0:
            return 0.0
        return math.sqrt(self.m2 / (self.n - 1)) / self.mean


GO_ON, QUIET, SETTLED, MAX, TIMEOUT = range(5)


def _settled(st, z, elapsed):
    w, n = max(st["min_samples"], 10), z.n
    if n < 2 * w:
        return False
    h, before = z.history[n - 1], z.history[n - 1 - w]
    if h >= 0.95 * before:
        return True
    scale, scale_before = h * math.sqrt(n), before * math.sqrt(n - w)
    if not abs(scale - scale_before) <= 0.05 * scale:
        return False
    need = n * (h / (st["max_noise_pct"] / 100.0)) ** 2
    return need > st["max_samples"] or elapsed / n * (need - n) > st["timeout_s"] - elapsed


def stopping_check(st, z, elapsed):
    """As pb_stopping_check: once min_samples and min_time are reached,
    stop when the median interval's half-width is at most max_noise (from
    6 samples), or when more samples would not bring it there (it did not
    fall by 5% over the last max(min_samples, 10) samples, or its spread
    settled and max_noise is out of reach of max_samples and the timeout);
    max_samples and the timeout stop in any case."""
    if z.n >= st["min_samples"] and z.measured >= st["min_time_s"]:
        if z.n >= 6 and z.halfwidth() <= st["max_noise_pct"] / 100.0:
            return QUIET
        if _settled(st, z, elapsed):
            return SETTLED
    if z.n >= st["max_samples"]:
        return MAX
    if elapsed >= st["timeout_s"]:
        return TIMEOUT
    return GO_ON
