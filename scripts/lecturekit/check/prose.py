"""What the prose printed: every inline expression's text and every claim's truth, recorded in the
expectations (`_prose`) and compared like an output, so a changed number in a sentence is shown as
the sentence before and after, with its file and line.

A record is matched by its file, its expression and which occurrence of that expression in the file
it is (line numbers move when prose is edited; the n-th `{python} bn(total)` of a file does not).
A value that is new (prose written since) is reported as not recorded and recorded on the next
accept; a record that is gone (prose rewritten) is dropped then. Neither is a failure: the prose
itself changed, in plain sight.
"""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lecturekit.execute.record import CellRun, ProseRun
from .records import ClaimRecord, InlineRecord, ProseRecord
from .readers import claim_line, source_line

INLINE = re.compile(r"`\{python\}\s+([^`]+?)\s*`")
WIDTH = 220  # characters of a sentence shown around the value

# ("inline", file, expression, n) or ("claim", file, sentence, n): the n-th of them in the file.
Key = tuple[str, str, str, int]


@dataclass(frozen=True)
class ProseValue:
    """One inline expression's printed text where it stands in the sources."""
    file: str
    expr: str
    nth: int  # earlier occurrences of the same expression in the same file
    value: str
    line: int

    @property
    def key(self) -> Key:
        return ("inline", self.file, self.expr, self.nth)

    def record(self) -> InlineRecord:
        return {"file": self.file, "expr": self.expr, "value": self.value}


@dataclass(frozen=True)
class ClaimValue:
    file: str
    sentence: str
    nth: int
    holds: bool
    line: int

    @property
    def key(self) -> Key:
        return ("claim", self.file, self.sentence, self.nth)

    def record(self) -> ClaimRecord:
        return {"file": self.file, "claim": self.sentence, "holds": self.holds}


# What the prose printed: an inline expression's text, or whether a claim held.
Value = ProseValue | ClaimValue


@dataclass(frozen=True)
class ProseChange:
    """A sentence that now reads differently."""
    file: str
    line: int
    expr: str
    old: str
    new: str
    old_sentence: str
    new_sentence: str

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def current_values(runs: Sequence[CellRun | ProseRun], project_root: str | os.PathLike[str]) -> list[Value]:
    """Every inline value and claim of the execution record's prose runs, in document order."""
    found: list[Value] = []
    seen: dict[tuple[str, str, str], int] = {}
    for run in runs:
        if not isinstance(run, ProseRun):
            continue
        source = os.path.join(project_root, run.file)
        in_run: dict[str, int] = {}
        for inline in run.inline:
            nth = seen.get(("inline", run.file, inline.expr), 0)
            seen[("inline", run.file, inline.expr)] = nth + 1
            k = in_run.get(inline.expr, 0)
            in_run[inline.expr] = k + 1
            line = source_line(source, run.line, f"{{python}} {inline.expr}`", k)
            found.append(ProseValue(run.file, inline.expr, nth, inline.value, line))
        for claim in run.claims:
            nth = seen.get(("claim", run.file, claim.sentence), 0)
            seen[("claim", run.file, claim.sentence)] = nth + 1
            found.append(ClaimValue(run.file, claim.sentence, nth, bool(claim.ok),
                                    claim_line(source, claim.sentence, claim.line)))
    return found


def records(values: Sequence[Value]) -> list[ProseRecord]:
    return [v.record() for v in values]


def _recorded_keys(recorded: Sequence[Any] | None) -> dict[tuple[str, Any, Any, int], dict[str, Any]]:
    """The records read back from the expectations file (any YAML), by the key of the value they record."""
    keyed: dict[tuple[str, Any, Any, int], dict[str, Any]] = {}
    seen: dict[tuple[str, Any, Any], int] = {}
    for rec in recorded or []:
        if not isinstance(rec, dict):
            continue
        if "expr" in rec:
            ident = ("inline", rec.get("file"), rec.get("expr"))
        else:
            ident = ("claim", rec.get("file"), rec.get("claim"))
        nth = seen.get(ident, 0)
        seen[ident] = nth + 1
        keyed[(*ident, nth)] = rec
    return keyed


def sentence(source_text: str, expr: str, value: str, others: dict[str, str]) -> str:
    """The source line as a reader sees it: every inline expression replaced by its value (`expr` by
    `value`), claim brackets dropped, cut to WIDTH characters around the value."""
    marked = "\0"
    first = [True]

    def put(match: re.Match[str]) -> str:
        e = match.group(1)
        if e == expr and first[0]:
            first[0] = False
            return marked
        return others.get(e, "…")
    text = INLINE.sub(put, source_text)
    text = re.sub(r"\]\{\.claim[^}]*\}", "", text).replace("[", "").strip().lstrip("-* ").strip()
    at = text.find(marked)
    if len(text) > WIDTH and at >= 0:
        start = max(0, at - WIDTH // 2)
        text = ("…" if start else "") + text[start:start + WIDTH] + ("…" if start + WIDTH < len(text) else "")
    return text.replace(marked, value)


def changes(recorded: Sequence[Any], values: Sequence[Value],
            project_root: str | os.PathLike[str]) -> tuple[list[ProseChange], list[Value]]:
    """(ProseChange for every inline value that differs from its record, values without a record)."""
    keyed = _recorded_keys(recorded)
    now = {v.expr: v.value for v in values if isinstance(v, ProseValue)}
    found: list[ProseChange] = []
    new: list[Value] = []
    for value in values:
        rec = keyed.get(value.key)
        if rec is None:
            new.append(value)
            continue
        if not isinstance(value, ProseValue):
            continue
        old = str(rec.get("value"))
        if old == value.value:
            continue
        try:
            with open(os.path.join(project_root, value.file), encoding="utf-8") as fh:
                text = fh.read().split("\n")[value.line - 1]
        except (OSError, IndexError):
            text = f"`{{python}} {value.expr}`"
        found.append(ProseChange(value.file, value.line, value.expr, old, value.value,
                                 sentence(text, value.expr, old, now), sentence(text, value.expr, value.value, now)))
    return found, new
