"""Sizes (config/sizes.c): expressions of numbers joined by + - * ^ without
spaces, lists, and ranges FIRST .. LAST [*FACTOR | +STEP]."""

import re

from peerslib.common import Bad


SIZE_LIMIT = 1 << 62


def _size_expr(text):
    """(leading term, offset) of an expression, as config/sizes.c reads it."""
    pos = [0]

    def fail(what):
        rest = text[pos[0]:]
        where = "at '%s'" % rest if rest else "at its end"
        raise Bad("bad size expression '%s': %s %s" % (text, what, where))

    def number():
        m = re.match(r"[0-9]+", text[pos[0]:])
        if not m:
            fail("expected a number")
        pos[0] += m.end()
        v = int(m.group(0))
        if v > SIZE_LIMIT:
            fail("number too large")
        return v

    def factor():
        b = number()
        if text[pos[0]:pos[0] + 1] != "^":
            return b
        pos[0] += 1
        e = number()
        if b <= 1:
            return 1 if e == 0 else b
        if e > 62:
            fail("power too large")
        v = b ** e
        if v > SIZE_LIMIT:
            fail("power too large")
        return v

    def term():
        v = factor()
        while text[pos[0]:pos[0] + 1] == "*":
            pos[0] += 1
            v *= factor()
            if v > SIZE_LIMIT:
                fail("product too large")
        return v

    lead = term()
    off = 0
    while text[pos[0]:pos[0] + 1] in ("+", "-") and pos[0] < len(text):
        op = text[pos[0]]
        pos[0] += 1
        t = term()
        off += t if op == "+" else -t
        if abs(off) > SIZE_LIMIT:
            fail("offset too large")
    if pos[0] < len(text):
        fail("unexpected character")
    if off < 0 and -off > lead:
        fail("negative size")
    if lead + off > SIZE_LIMIT:
        fail("size too large")
    return lead, off


def size_value(text):
    lead, off = _size_expr(text)
    return lead + off


def parse_sizes(text):
    """A size list, as permbench reads `sizes` (and integer list items)."""
    out = []
    for raw in text.split(","):
        item = raw.strip()
        words = item.replace("..", " .. ").split()
        if not words:
            raise Bad("empty item in size list '%s'" % text)
        if len(words) == 1:
            out.append(size_value(words[0]))
            continue
        if len(words) == 2 or words[1] != "..":
            raise Bad("bad size expression '%s': write expressions without spaces, and ranges as "
                      "'FIRST .. LAST [*FACTOR | +STEP]'" % item)
        if len(words) > 4:
            raise Bad("bad size range '%s': expected 'FIRST .. LAST [*FACTOR | +STEP]'" % item)
        a, oa = _size_expr(words[0])
        b, ob = _size_expr(words[2])
        op, step = "*", 2
        if len(words) == 4:
            op = words[3][0]
            if op not in "*+":
                raise Bad("bad size range '%s': step '%s' is not '*FACTOR' or '+STEP'" % (item, words[3]))
            step = size_value(words[3][1:])
        first, last = a + oa, b + ob
        if first > last:
            raise Bad("bad size range '%s': first size is above the last" % item)
        if op == "+":
            if step < 1:
                raise Bad("bad size range '%s': step must be at least 1" % item)
            out.extend(range(first, last + 1, step))
            continue
        if step < 2:
            raise Bad("bad size range '%s': factor must be at least 2" % item)
        if oa != ob:
            raise Bad("bad size range '%s': both ends of a geometric range need the same offset "
                      "(%+d and %+d)" % (item, oa, ob))
        if a == 0:
            raise Bad("bad size range '%s': a geometric range cannot start at 0" % item)
        v = a
        while v <= b:
            out.append(v + oa)
            v *= step
    if len(out) > 4096:
        raise Bad("too many sizes (at most 4096)")
    return out


def size_name(n):
    """2^k, 2^k+1, 2^k-1 or the number (config/sizes.c's pb_size_format)."""
    for k in range(4, 63):
        p = 1 << k
        if n == p:
            return "2^%d" % k
        if n == p + 1:
            return "2^%d+1" % k
        if n == p - 1:
            return "2^%d-1" % k
    return str(n)


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h
