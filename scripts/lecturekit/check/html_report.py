"""The HTML report an author opens: each problem side by side, expected | got, changed tokens marked.

Lines are aligned with difflib.SequenceMatcher; within a changed line, tokens (numbers, words,
runs of spaces, single signs) are compared again and only the changed ones are highlighted.
Everything the cells printed is escaped: the report shows text, it never runs it.
"""
from __future__ import annotations

import difflib
import html
import os
import re
from collections.abc import Sequence
from itertools import zip_longest
from pathlib import Path
from typing import TypedDict

from jinja2 import Environment
from markupsafe import Markup

from lecturekit.fsutil import write_atomic

from .envs import Comparison, environment_texts
from .normalise import Item, as_lines
from .report import TITLES, claim_state, reader_line, summary_line, timing_line, versions_text
from .run import Checked

# One row of a side-by-side diff: the left text, the right text (changed tokens marked) and its kind.
DiffRow = tuple[str | Markup, str | Markup, str]


class Problem(TypedDict):
    """One problem as the template shows it: what, where, why, and expected | got side by side."""
    kind: str
    label: str
    heading: str
    where: str
    message: str
    versions: str
    cause: str
    rows: list[DiffRow]
    left: str
    right: str
    readers: list[str]


class ClaimShown(TypedDict):
    where: str
    sentence: str
    expr: str
    state: str


class EnvironmentRow(TypedDict):
    """A row of the upgrade report's table."""
    label: str
    where: str
    heading: str
    differs: bool
    short: str
    expected: str


class LectureShown(TypedDict):
    name: str
    timing: str
    versions: str
    environments: list[str]
    summary: str
    problems: list[Problem]
    claims: list[ClaimShown]
    rows: list[EnvironmentRow]

TOKEN = re.compile(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|\w+|\s+|[^\w\s]")


def _marked(tokens: list[str], spans: list[tuple[int, int]], tag: str) -> Markup:
    out: list[str] = []
    changed: set[int] = set()
    for a, b in spans:
        changed.update(range(a, b))
    for i, token in enumerate(tokens):
        text = html.escape(token)
        out.append(f"<{tag}>{text}</{tag}>" if i in changed else text)
    return Markup("".join(out))


def token_pair(left: str, right: str) -> tuple[Markup, Markup]:
    """Two changed lines with their differing tokens wrapped in <del> / <ins>."""
    a, b = TOKEN.findall(left), TOKEN.findall(right)
    went: list[tuple[int, int]] = []
    came: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            went.append((i1, i2))
            came.append((j1, j2))
    return _marked(a, went, "del"), _marked(b, came, "ins")


def side_by_side(expected: list[Item] | None, got: list[Item] | None) -> list[DiffRow]:
    """Rows (left, right, kind) with kind in same / changed / removed / added."""
    a, b = as_lines(expected), as_lines(got)
    rows: list[DiffRow] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            rows += [(x, y, "same") for x, y in zip(a[i1:i2], b[j1:j2])]
            continue
        for x, y in zip_longest(a[i1:i2], b[j1:j2]):
            if x is not None and y is not None:
                rows.append((*token_pair(x, y), "changed"))
            elif x is not None:
                rows.append((Markup(f"<del>{html.escape(x)}</del>"), "", "removed"))
            else:
                rows.append(("", Markup(f"<ins>{html.escape(y)}</ins>"), "added"))
    return rows


TEMPLATE = """<!doctype html>
<html lang="bn"><head><meta charset="utf-8"><title>{{ title }}</title>
<style>
body { font-family: "Noto Sans Bengali", "Noto Sans", sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; margin-top: 2em; }
.problem { border: 1px solid #ddd; border-radius: 6px; padding: .6em 1em; margin: 1em 0; }
.kind { font-weight: bold; color: #b00; margin-right: .5em; } .where { color: #555; font-family: monospace; }
.ok { color: #080; } .muted { color: #666; }
table.diff { border-collapse: collapse; width: 100%; table-layout: fixed; margin-top: .5em; }
table.diff td, table.diff th { font-family: "Noto Sans Mono", monospace; font-size: 13px; white-space: pre-wrap;
  vertical-align: top; padding: 1px 6px; border-left: 1px solid #eee; overflow-wrap: anywhere; }
tr.changed td, tr.removed td.l, tr.added td.r { background: #fffbe6; }
del { background: #f8c4c4; text-decoration: none; } ins { background: #bfe8c4; text-decoration: none; }
table.envs { border-collapse: collapse; } table.envs td, table.envs th { border: 1px solid #ddd; padding: 3px 8px; }
</style></head><body>
<h1>{{ title }}</h1>
{% for lec in lectures %}
<h2>{{ lec.name }}</h2>
<p class="muted">{{ lec.timing }}{% if lec.versions %} · {{ lec.versions }}{% endif %}</p>
{% if lec.environments %}<ul class="envlist">{% for e in lec.environments %}<li>{{ e }}</li>{% endfor %}</ul>{% endif %}
<p>{{ lec.summary }}</p>
{% if lec.rows %}
<table class="envs"><tr><th>cell</th><th>file:line</th><th>section</th><th>differs</th><th>tests/expected there</th><th>short diff</th></tr>
{% for r in lec.rows %}<tr><td>{{ r.label }}</td><td class="where">{{ r.where }}</td><td>{{ r.heading }}</td>
<td>{% if r.differs %}<b>yes</b>{% else %}<span class="ok">no</span>{% endif %}</td>
<td>{% if r.expected == "ok" %}<span class="ok">ok</span>{% else %}<b>{{ r.expected }}</b>{% endif %}</td><td class="where">{{ r.short }}</td></tr>
{% endfor %}</table>
{% endif %}
{% for p in lec.problems %}
<div class="problem" id="{{ lec.name }}-{{ p.label }}">
<div><span class="kind">{{ p.kind }}</span><b>{{ p.label }}</b>{% if p.heading %} — {{ p.heading }}{% endif %}
 <span class="where">{{ p.where }}</span></div>
<div>{{ p.message }}</div>
{% if p.versions %}<div class="muted">{{ p.versions }}</div>{% endif %}
{% if p.cause %}<div class="cause">{{ p.cause }}</div>{% endif %}
{% if p.rows %}<table class="diff"><tr><th>{{ p.left }}</th><th>{{ p.right }}</th></tr>
{% for l, r, kind in p.rows %}<tr class="{{ kind }}"><td class="l">{{ l }}</td><td class="r">{{ r }}</td></tr>
{% endfor %}</table>{% endif %}
{% if p.readers %}<p>Prose that reads this cell's results:</p><ul>
{% for line in p.readers %}<li class="where">{{ line }}</li>{% endfor %}</ul>{% endif %}
</div>
{% endfor %}
{% for c in lec.claims %}
<div class="problem"><div><span class="kind">CLAIM</span><span class="where">{{ c.where }}</span></div>
<div>“{{ c.sentence }}”</div><div class="where">check="{{ c.expr }}" {{ c.state }}</div></div>
{% endfor %}
{% endfor %}
</body></html>
"""


def _env() -> Environment:
    return Environment(autoescape=True, keep_trailing_newline=True)


def write_check_report(path: str | os.PathLike[str], checkeds: Sequence[Checked],
                       title: str = "Output check") -> Path:
    lectures: list[LectureShown] = []
    for checked in checkeds:
        problems: list[Problem] = []
        for r in checked.problems:
            if r.status == "missing" and not checked.expectations.exists:
                continue
            problems.append({
                "kind": TITLES[r.status], "label": r.label, "heading": r.cell.heading if r.cell else "",
                "where": r.cell.where if r.cell else str(checked.expectations.path), "message": r.message,
                "versions": (f"expected output recorded under {versions_text(r.expected_versions)}; "
                             f"this run: {versions_text(checked.versions)}") if r.expected_versions else "",
                "cause": r.cause,
                "rows": side_by_side(r.expected or [], r.got or []), "left": "expected", "right": "got",
                "readers": [reader_line(reader) for reader in r.readers]})
        for kind, changes in (("PROSE", checked.prose_changes), ("PROSE (this machine)", checked.prose_machine)):
            for c in changes:  # the sentence before and after, changed words marked
                problems.append({"kind": kind, "label": f"`{{python}} {c.expr}`", "heading": "", "where": c.where,
                                 "message": f"{c.old} → {c.new}", "versions": "", "cause": "",
                                 "rows": [(*token_pair(c.old_sentence, c.new_sentence), "changed")],
                                 "left": "was", "right": "now", "readers": []})
        claims: list[ClaimShown] = [{"where": f"{c.file}:{c.line}", "sentence": c.sentence, "expr": c.expr,
                                     "state": claim_state(c)} for c in checked.claims_failed]
        lectures.append({"name": checked.name, "timing": timing_line(checked),
                         "versions": versions_text(checked.versions), "environments": [],
                         "summary": summary_line(checked), "problems": problems,
                         "claims": claims, "rows": []})
    return _write(path, title, lectures)


def write_compare_report(path: str | os.PathLike[str], comparisons: Sequence[Comparison]) -> Path:
    lectures: list[LectureShown] = []
    for comp in comparisons:
        rows: list[EnvironmentRow] = [{"label": r.name, "where": r.where, "heading": r.heading, "differs": r.differs,
                                       "short": r.short, "expected": r.expected} for r in comp.rows]
        problems: list[Problem] = [
            {"kind": "DIFFERS", "label": r.name, "heading": r.heading, "where": r.where,
             "message": "", "versions": "", "cause": "", "rows": side_by_side(r.here or [], r.there or []),
             "left": f"this environment ({versions_text(comp.here_versions)})",
             "right": f"{comp.python} ({versions_text(comp.there_versions)})",
             "readers": [reader_line(reader) for reader in r.readers]}
            for r in comp.rows if r.differs]
        problems += [{"kind": "NOT AS EXPECTED THERE", "label": r.label, "heading": r.cell.heading if r.cell else "",
                      "where": r.cell.where if r.cell else "", "message": r.message + " (tests/expected, under "
                      "the other environment)", "versions": "", "cause": r.cause,
                      "rows": side_by_side(r.expected or [], r.got or []), "left": "tests/expected",
                      "right": f"{comp.python}", "readers": []} for r in comp.expected_failed_there]
        claims: list[ClaimShown] = [{"where": f"{c.file}:{c.line}", "sentence": c.sentence, "expr": c.expr,
                                     "state": "fails under the other environment"} for c in comp.claims_failed_there]
        lectures.append({"name": comp.name, "timing": comp.timing_text, "versions": "",
                         "environments": environment_texts(comp),
                         "summary": comp.summary, "problems": problems, "claims": claims, "rows": rows})
    return _write(path, "Upgrade report: the same lectures under two environments", lectures)


def _write(path: str | os.PathLike[str], title: str, lectures: list[LectureShown]) -> Path:
    path = Path(path)
    write_atomic(path, _env().from_string(TEMPLATE).render(title=title, lectures=lectures).encode("utf-8"))
    return path
