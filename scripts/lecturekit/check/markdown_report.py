"""The Markdown report: what a pull request changed, old → new, where a CI job summary shows it.

One table row per lecture, then for every lecture with a change a table of the changes (each output,
prose value and claim: where, and old → new), each changed output's diff, and the text report in full. Made from the
same pieces as the text report (report.py). Everything a cell printed or the prose says is shown
as code (a code span, or a fenced block longer than any backtick run inside), never as Markdown or
HTML the page would interpret.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from .report import TITLES, claim_state, environment_lines, lecture_report, summary
from .run import Checked

HEADING = "Outputs against tests/expected/"


def code(text: str) -> str:
    """An inline code span for any text (one line, `|` escaped for a table cell)."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fenced(text: str, info: str = "text") -> list[str]:
    """A fenced block longer than any backtick run in `text`."""
    fence = "`" * max(3, max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return [f"{fence}{info}", *text.split("\n"), fence]


def _counts(checked: Checked) -> tuple[str, str, str]:
    cells = [r for r in checked.results if r.status != "stale"]
    inline = checked.inline_values
    held = checked.claims_total - len(checked.claims_failed)
    return (f"{sum(not r.failed for r in cells)} of {len(cells)}",
            f"{inline - len(checked.prose_changes) - len(checked.prose_machine)} of {inline}",
            f"{held} of {checked.claims_total}")


def _result(checked: Checked) -> str:
    if checked.failed:
        return "**changed**"
    if checked.has_warnings:
        return "as recorded, with warnings"
    return "as recorded"


def change_rows(checked: Checked) -> list[str]:
    """| what | where | old → new | for each changed output, prose value, failing claim and warning."""
    rows = []
    for result in checked.problems:
        cell = result.cell
        where = cell.where if cell else str(checked.expectations.path.name)
        heading = f"{cell.heading} › " if cell and cell.heading else ""
        what = result.message + (f"; {result.cause}" if result.cause else "")
        rows.append(f"| {TITLES[result.status]} {code(heading + result.label)} | {code(where)} | {code(what)} |")
    for change in checked.prose_changes:
        rows.append(f"| PROSE {code('{python} ' + change.expr)} | {code(change.where)} | "
                    f"{code(change.old)} → {code(change.new)} |")
    for claim in checked.claims_failed:
        rows.append(f"| CLAIM {code(claim.expr)} | {code(f'{claim.file}:{claim.line}')} | "
                    f"holds → {code(claim_state(claim))} |")
    for change in checked.prose_machine:
        rows.append(f"| WARNING prose on this machine {code('{python} ' + change.expr)} | {code(change.where)} | "
                    f"{code(change.old)} → {code(change.new)} |")
    for result in checked.warnings:
        where = result.cell.where if result.cell else ""
        rows.append(f"| WARNING {code(result.label)} | {code(where)} | changed within its tolerance |")
    return rows


def markdown_report(checkeds: Sequence[Checked]) -> str:
    lines = [f"## {HEADING}", "", "| lecture | outputs as expected | prose values as recorded | claims hold | result |",
             "|---|--:|--:|--:|---|"]
    for checked in checkeds:
        outputs, prose, claims = _counts(checked)
        lines.append(f"| {code(checked.name)} | {outputs} | {prose} | {claims} | {_result(checked)} |")
    for checked in checkeds:
        rows = change_rows(checked)
        if not rows and not checked.recorded:
            continue
        lines += ["", f"### {code(checked.name)}", ""]
        files = checked.changed_files
        if checked.failed and files:
            lines += ["Files changed since the outputs were recorded: " + ", ".join(code(f) for f in files), ""]
        environment = environment_lines(checked)
        if environment:
            lines += ["Environment: " + code(environment[0].removeprefix("ENVIRONMENT").strip()), ""]
        if rows:
            lines += ["| what | where | old → new |", "|---|---|---|", *rows, ""]
        for result in checked.problems:  # each output's own old → new
            if result.diff:
                where = result.cell.where if result.cell else checked.expectations.path.name
                lines += [f"{TITLES[result.status]} {code(result.label)} at {code(where)}:", "",
                          *fenced("\n".join(result.diff), "diff"), ""]
        lines += ["<details><summary>The check's report</summary>", "", *fenced(lecture_report(checked)), "",
                  "</details>"]
    text = summary(checkeds)
    if text:
        lines += ["", *fenced(text)]
    return "\n".join(lines) + "\n"
