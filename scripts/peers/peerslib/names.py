"""Modules' old names (docs/modules.md): every module name starts with its
device, and a renamed module's old name still reads as its new one. The
table is permbench's own (core/module_aliases.c), read from the tree this
script stands in, so the two cannot disagree."""

import os
import re

_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "core", "module_aliases.c")
_ALIASES = None


def aliases():
    """{old name: new name}."""
    global _ALIASES
    if _ALIASES is None:
        with open(_TABLE, encoding="utf-8") as f:
            _ALIASES = dict(re.findall(r'\{"([^"]+)", "([^"]+)"\}', f.read()))
    return _ALIASES


def canonical(label):
    """A module name, series or row label with an old module name at its
    start ("radik/k=32") under the new one ("gpu-radik/k=32"); any other
    label (an instance "radik-two-read") as it is."""
    if not isinstance(label, str):
        return label
    head, sep, rest = label.partition("/")
    new = aliases().get(head)
    return new + sep + rest if new else label


def canonical_run(root):
    """A results.json written before the rename, its rows, instances and
    reference under the new names (as permbench compare reads it)."""
    for key in ("results", "instances"):
        for r in root.get(key) or []:
            if isinstance(r, dict):
                for k in ("label", "series", "module"):
                    if k in r:
                        r[k] = canonical(r[k])
    sweep = root.get("sweep")
    if isinstance(sweep, dict) and sweep.get("reference"):
        sweep["reference"] = canonical(sweep["reference"])
    return root
