"""The text report: per lecture the timing, a summary, then every problem with where it is."""

TITLES = {
    "drift": "DRIFT", "missing": "MISSING", "stale": "STALE", "unlabelled": "NO LABEL",
    "no-longer-raises": "NO RAISE", "raised-differently": "OTHER ERROR",
}


def versions_text(versions):
    """python, torch (with its build variant), numpy, and the kernels that did the arithmetic."""
    names = (("python", "python"), ("torch", "torch"), ("numpy", "numpy"), ("cpu_capability", "CPU capability"),
             ("torch_blas", "torch BLAS"), ("numpy_blas", "NumPy BLAS"), ("numpy_blas_core", "kernels"))
    return ", ".join(f"{name} {versions.get(k)}" for k, name in names if versions and versions.get(k) is not None)


def timing_line(checked):
    if checked.from_cache:
        return (f"[{checked.name}] checked from cache in {checked.seconds:.2f} s "
                f"(fresh execution took {checked.fresh_seconds:.1f} s)")
    return f"[{checked.name}] executed and checked in {checked.seconds:.1f} s (no valid cache)"


def _claim_state(claim):
    if claim.get("error"):
        return "raises " + claim["error"].strip().split("\n")[-1]
    return "holds" if claim.get("ok") else "is false"


def reader_lines(readers, indent="    "):
    lines = []
    for r in readers:
        if r["kind"] == "inline":
            lines.append(f"{indent}{r['file']}:{r['line']}  `{{python}} {r['expr']}` now reads {r['value']!r}")
        else:
            lines.append(f"{indent}{r['file']}:{r['line']}  claim “{r['sentence']}” check=\"{r['expr']}\" "
                         f"{_claim_state(r)}")
    return lines


def problem_lines(checked, result):
    cell = result.cell
    where = f" › {cell.heading}" if cell and cell.heading else ""
    lines = [f"{TITLES[result.status]}  {checked.name}{where} › {result.label}",
             f"    {cell.where if cell else checked.expectations.path}",
             f"    {result.message}"]
    if result.expected_versions and result.status != "stale":
        lines.append(f"    expected output recorded under {versions_text(result.expected_versions)}; "
                     f"this run: {versions_text(checked.versions)}")
    if result.cause:
        lines.append(f"    {result.cause}")
    lines += ["    " + line for line in result.diff]
    if result.readers:
        lines.append("    prose that reads this cell's results:")
        lines += reader_lines(result.readers, "      ")
    return lines


def claim_lines(checked, claim):
    return [f"CLAIM  {checked.name} › {claim['file']}:{claim['line']}",
            f"    “{claim['sentence']}”",
            f"    check=\"{claim['expr']}\" {_claim_state(claim)}"]


def lecture_report(checked):
    results = checked.results
    checked_cells = [r for r in results if r.status != "stale"]
    problems = checked.problems
    lines = [timing_line(checked)]
    held = checked.claims_total - len(checked.claims_failed)
    lines.append(f"[{checked.name}] {len(checked_cells)} cells with output: "
                 f"{sum(not r.failed for r in checked_cells)} as expected, "
                 f"{sum(r.failed for r in checked_cells)} not"
                 + (f"; {len(problems) - sum(r.failed for r in checked_cells)} stale expectations"
                    if any(r.status == "stale" for r in problems) else "")
                 + f"; claims: {held} of {checked.claims_total} hold")
    if not checked.expectations.exists:
        lines.append(f"[{checked.name}] no expectations yet ({checked.expectations.path.name}); if the outputs "
                     f"are right, record them: scripts/check {checked.name} --accept")
    for result in problems:
        if checked.expectations.exists or result.status != "missing":
            lines += [""] + problem_lines(checked, result)
    for claim in checked.claims_failed:
        lines += [""] + claim_lines(checked, claim)
    return "\n".join(lines)


def summary(checkeds):
    drift = sum(len(c.problems) for c in checkeds)
    claims = sum(len(c.claims_failed) for c in checkeds)
    if not drift and not claims:
        return "OK: every output as expected, every claim holds"
    names = " ".join(c.name for c in checkeds if c.problems)
    text = f"FAILED: {drift} cell(s) not as expected, {claims} claim(s) failing."
    if drift:
        text += (f"\nIf the new outputs are right: scripts/check {names} --accept "
                 "(or --accept LABEL ... for some of them)")
    if claims:
        text += "\nA failing claim means the prose no longer matches the output: edit the sentence or the code."
    return text
