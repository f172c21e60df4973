"""The text report: per lecture the timing, a summary, then every problem with where it is.

Each line is made from the typed results (run.Checked, run.CellCheck, the record's ClaimResult,
prose.ProseChange); html_report.py takes the same pieces (`timing_text`, `reader_line`, …)."""
from __future__ import annotations

from collections.abc import Sequence

from lecturekit.execute.record import ClaimResult
from .prose import ProseChange
from .readers import InlineReader, Reader
from .records import Versions
from .run import CellCheck, Checked

TITLES = {
    "drift": "DRIFT", "missing": "MISSING", "stale": "STALE", "unlabelled": "NO LABEL",
    "no-longer-raises": "NO RAISE", "raised-differently": "OTHER ERROR",
}


VERSION_NAMES = (("python", "python"), ("torch", "torch"), ("numpy", "numpy"), ("cpu", "CPU"),
                 ("cpu_capability", "CPU capability"), ("torch_threads", "torch threads"),
                 ("torch_blas", "torch BLAS"), ("numpy_blas", "NumPy BLAS"), ("numpy_blas_core", "kernels"))


def versions_text(versions: Versions | None) -> str:
    """python, torch (with its build variant), numpy, the CPU and the kernels and threads that did the arithmetic."""
    return ", ".join(f"{name} {versions.get(k)}" for k, name in VERSION_NAMES
                     if versions and versions.get(k) is not None)


def timing_text(checked: Checked) -> str:
    """How the lecture was checked and how long it took."""
    if checked.from_cache:
        return (f"checked from cache in {checked.seconds:.2f} s "
                f"(fresh execution took {checked.fresh_seconds:.1f} s)")
    return f"executed and checked in {checked.seconds:.1f} s (no valid cache)"


def timing_line(checked: Checked) -> str:
    return f"[{checked.name}] {timing_text(checked)}"


def claim_state(claim: ClaimResult) -> str:
    if claim.error:
        return "raises " + str(claim.error).strip().split("\n")[-1]
    return "holds" if claim.ok else "is false"


def reader_line(reader: Reader) -> str:
    """Where the prose reads a cell's results, and what it shows now."""
    if isinstance(reader, InlineReader):
        return f"{reader.file}:{reader.line}  `{{python}} {reader.expr}` now reads {reader.value!r}"
    return (f"{reader.file}:{reader.line}  claim “{reader.sentence}” check=\"{reader.expr}\" "
            f"{claim_state(reader)}")


def reader_lines(readers: Sequence[Reader], indent: str = "    ") -> list[str]:
    return [indent + reader_line(r) for r in readers]


def prose_change_lines(changes: Sequence[ProseChange], indent: str = "    ") -> list[str]:
    lines: list[str] = []
    for c in changes:
        lines.append(f"{indent}{c.where}  `{{python}} {c.expr}`  {c.old} → {c.new}")
        lines.append(f"{indent}  was: {c.old_sentence}")
        lines.append(f"{indent}  now: {c.new_sentence}")
    return lines


def _attached(checked: Checked, result: CellCheck) -> list[ProseChange]:
    """The prose changes that read this cell's results (the rest are reported on their own)."""
    spots = {(r.file, r.line, r.expr) for r in result.readers if isinstance(r, InlineReader)}
    return [c for c in checked.prose_changes if (c.file, c.line, c.expr) in spots]


def problem_lines(checked: Checked, result: CellCheck, prose_shown: list[ProseChange]) -> list[str]:
    cell = result.cell
    where = f" › {cell.heading}" if cell and cell.heading else ""
    lines = [f"{TITLES[result.status]}  {checked.name}{where} › {result.label}",
             f"    {cell.where if cell else checked.expectations.path}",
             f"    {result.message}"]
    if result.cause:
        lines.append(f"    {result.cause}")
    lines += ["    " + line for line in result.diff]
    changes = [c for c in _attached(checked, result) if c not in prose_shown]
    if changes:
        prose_shown.extend(changes)
        lines.append("    prose this changes:")
        lines += prose_change_lines(changes, "      ")
    claims = [r for r in result.readers if isinstance(r, ClaimResult)]
    if claims:
        lines.append("    claims that read this cell's results:")
        lines += reader_lines(claims, "      ")
    return lines


def claim_lines(checked: Checked, claim: ClaimResult) -> list[str]:
    return [f"CLAIM  {checked.name} › {claim.file}:{claim.line}",
            f"    “{claim.sentence}”",
            f"    check=\"{claim.expr}\" {claim_state(claim)}"]


def warning_lines(checked: Checked, result: CellCheck) -> list[str]:
    cell = result.cell
    assert cell is not None  # a warning is a cell's output that matched within its tolerance
    tol = cell.options.get("tolerance") if cell else None
    why = tol.get("why") if isinstance(tol, dict) else ""
    where = f" › {cell.heading}" if cell and cell.heading else ""
    return ([f"WARNING  {checked.name}{where} › {result.label}: changed within its tolerance",
             f"    {cell.where}  (tolerance: {why})"]
            + ["    " + line for line in result.within if not line.startswith("@@")])


def environment_lines(checked: Checked) -> list[str]:
    """The environment diff once per lecture: what the outputs were recorded under, and this run."""
    recorded = [r.expected_versions for r in checked.problems if r.expected_versions]
    if not recorded:
        return []
    from .cause import environment_changes
    was = recorded[0]
    changes = environment_changes(was, checked.versions)
    lines = [f"    recorded under: {versions_text(was)}", f"    this run:       {versions_text(checked.versions)}"]
    return ["ENVIRONMENT  " + ("; ".join(changes) if changes else "the same as recorded")] + lines


def summary_line(checked: Checked) -> str:
    checked_cells = [r for r in checked.results if r.status != "stale"]
    stale = sum(r.status == "stale" for r in checked.problems)
    held = checked.claims_total - len(checked.claims_failed)
    inline = checked.inline_values
    return (f"[{checked.name}] {len(checked_cells)} cells with output: "
            f"{sum(not r.failed for r in checked_cells)} as expected, {sum(r.failed for r in checked_cells)} not"
            + (f"; {stale} stale expectations" if stale else "")
            + f"; prose values: {inline - len(checked.prose_changes) - len(checked.prose_machine)} of {inline} "
              f"as recorded" + (f" ({len(checked.prose_machine)} differ on this machine)" if checked.prose_machine else "")
            + f"; claims: {held} of {checked.claims_total} hold")


def lecture_report(checked: Checked) -> str:
    """The lecture's report: one line when nothing changed, else every change with where and why."""
    new_prose = (f"; {len(checked.prose_new)} new prose value(s) without a record (--accept records them)"
                 if checked.prose_new and checked.expectations.exists else "")
    if not checked.failed and not checked.has_warnings:
        ok = sum(r.status != "stale" for r in checked.results)
        return (f"[{checked.name}] OK: {ok} outputs, {checked.inline_values} prose values, "
                f"{checked.claims_total} claims as recorded; " + timing_text(checked) + new_prose)
    lines = [timing_line(checked), summary_line(checked)]
    if not checked.expectations.exists:
        lines.append(f"[{checked.name}] no expectations yet ({checked.expectations.path.name}); if the outputs "
                     f"are right, record them: scripts/check {checked.name} --accept")
    if new_prose:
        lines.append(f"[{checked.name}] {new_prose[2:]}")
    files = checked.changed_files
    if checked.failed and files:
        lines.append(f"[{checked.name}] files changed since the outputs were recorded: " + ", ".join(files))
    env = environment_lines(checked)
    if env:
        lines += [""] + env
    shown: list[ProseChange] = []
    for result in checked.problems:
        if checked.expectations.exists or result.status != "missing":
            lines += [""] + problem_lines(checked, result, shown)
    rest = [c for c in checked.prose_changes if c not in shown]
    if rest:
        lines += ["", f"PROSE  {checked.name}: {len(rest)} value(s) in the text changed"] + prose_change_lines(rest)
    for claim in checked.claims_failed:
        lines += [""] + claim_lines(checked, claim)
    for result in checked.warnings:
        lines += [""] + warning_lines(checked, result)
    if checked.prose_machine:
        lines += ["", f"WARNING  {checked.name}: {len(checked.prose_machine)} value(s) in the text differ on this "
                      "machine (no file changed, same versions, another CPU/kernels/threads)"]
        lines += prose_change_lines(checked.prose_machine)
    return "\n".join(lines)


def summary(checkeds: Sequence[Checked]) -> str:
    drift = sum(len(c.problems) for c in checkeds)
    prose = sum(len(c.prose_changes) for c in checkeds)
    claims = sum(len(c.claims_failed) for c in checkeds)
    warnings = sum(len(c.warnings) + len(c.prose_machine) for c in checkeds)
    if not drift and not claims and not prose:
        return "" if not warnings else (f"OK with {warnings} warning(s): values changed within their tolerance "
                                        "or on this machine's arithmetic (above)")
    names = " ".join(c.name for c in checkeds if c.problems or c.prose_changes)
    text = (f"FAILED: {drift} cell(s) not as expected, {prose} prose value(s) changed, "
            f"{claims} claim(s) failing.")
    if claims:
        text += "\nA failing claim means the prose no longer matches the output: edit the sentence or the code."
    if drift or prose:
        text += (f"\nIf the new outputs are right, accept them: scripts/check {names} --accept "
                 "(or scripts/render --accept to accept and render)")
    return text
