"""Compare expected and executed items: exactly (after the normalisers), or within a measured tolerance.

An output matches when its text is identical to the expectation. A cell may declare a tolerance only
for a difference measured between CPUs, kernels or thread counts, and must say so where it declares it:
  #| tolerance: {rel: 1e-5, abs: 1e-8, why: "AVX2 and AVX512 sum the 64 products in another order"}
(`rel` or `abs` may be left out, then 0; `why` is required). The texts are then split into numbers and
the text between them; the text between must match (runs of spaces may differ, since printed columns
widen with their numbers) and each pair of numbers must satisfy
|got - expected| <= max(rel * max(|got|, |expected|), abs). Bengali digits (০-৯) count as digits.
Error types (ename) are always compared exactly. A difference within the tolerance is never silent:
the report shows it as a warning (old → new), see `within_tolerance`.
"""
from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass
from typing import Any

from lecturekit.errors import LectureError
from lecturekit.words import FROM_BENGALI_DIGITS
from .normalise import Item, as_lines, item_kind, item_text

# Where a cell is, for an error about its options: file, line, label.
Where = tuple[str | None, int | None, str | None]

NUMBER = re.compile(r"(?<![\w.])([-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf)(?![\w])")
SPACES = re.compile(r"[ \t]+")


@dataclass(frozen=True)
class Tolerance:
    rel: float = 0.0
    abs: float = 0.0
    why: str = ""

    def close(self, a: float, b: float) -> bool:
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if math.isinf(a) or math.isinf(b):
            return a == b
        return abs(a - b) <= max(self.rel * max(abs(a), abs(b)), self.abs)


USAGE = '{rel: …, abs: …, why: "the difference measured between CPUs, kernels or thread counts"}'


def tolerance_of(options: dict[str, Any], where: Where = (None, None, None)) -> Tolerance | None:
    """The cell's `#| tolerance:` as a Tolerance, or None (exact comparison)."""
    value = options.get("tolerance")
    if value is None:
        return None
    value = _number(value) if isinstance(value, str) else value
    if not isinstance(value, dict):
        raise LectureError(f"'tolerance' must say why it is there (outputs are compared exactly unless a "
                           f"difference between machines was measured): {USAGE}, not {value!r}", *where)
    why = value.get("why")
    numbers = {k: _number(v) if isinstance(v, str) else v for k, v in value.items() if k != "why"}
    unknown = set(numbers) - {"rel", "abs"}
    if unknown or not numbers or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                         for v in numbers.values()):
        raise LectureError(f"'tolerance' takes the keys rel and abs with numbers, and why: {USAGE}, "
                           f"not {value!r}", *where)
    if not isinstance(why, str) or not why.strip():
        raise LectureError(f"'tolerance' must say why it is there (the difference measured): {USAGE}", *where)
    return Tolerance(float(numbers.get("rel", 0.0)), float(numbers.get("abs", 0.0)), why.strip())


def _number(text: str) -> float | str:
    # YAML 1.1 (PyYAML) reads `1e-6` as a string; it means the number.
    try:
        return float(text)
    except ValueError:
        return text


def texts_match(expected: str, got: str, tolerance: Tolerance | None = None) -> bool:
    if expected == got:
        return True
    if tolerance is None:
        return False
    a = NUMBER.split(expected.translate(FROM_BENGALI_DIGITS))
    b = NUMBER.split(got.translate(FROM_BENGALI_DIGITS))
    if len(a) != len(b):
        return False
    for i, (x, y) in enumerate(zip(a, b)):
        if i % 2:  # a number
            if not tolerance.close(float(x), float(y)):
                return False
        elif SPACES.sub(" ", x) != SPACES.sub(" ", y):
            return False
    return True


def items_match(expected: list[Item], got: list[Item], tolerance: Tolerance | None = None) -> bool:
    """True when the executed items equal the expected ones (within the tolerance, if any)."""
    if len(expected) != len(got):
        return False
    for e, g in zip(expected, got):
        if item_kind(e) != item_kind(g) or e.get("error") != g.get("error"):
            return False
        if not texts_match(item_text(e), item_text(g), tolerance):
            return False
    return True


def within_tolerance(expected: list[Item], got: list[Item], tolerance: Tolerance | None) -> list[str]:
    """The diff lines of an output that matches only thanks to the tolerance (empty when identical
    or when it does not match at all): a warning, never silence."""
    if tolerance is None or expected == got or not items_match(expected, got, tolerance):
        return []
    return unified_diff(expected, got, context=0)[2:]


def unified_diff(expected: list[Item] | None, got: list[Item] | None, context: int = 3) -> list[str]:
    """difflib's unified diff of the items as text (`[kind]` lines, then the text)."""
    return list(difflib.unified_diff(as_lines(expected), as_lines(got), "expected", "got",
                                     n=context, lineterm=""))


def short_diff(expected: list[Item] | None, got: list[Item] | None, width: int = 70) -> str:
    """One line: the first line that went and the first that came."""
    went = came = ""
    for line in unified_diff(expected, got, context=0)[2:]:
        if line.startswith("-") and not went:
            went = line[1:].strip()
        elif line.startswith("+") and not came:
            came = line[1:].strip()
    text = f"- {went}  + {came}" if went or came else ""
    return text if len(text) <= width else text[:width - 1] + "…"
