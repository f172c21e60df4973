"""Each lecture's own facts, on top of the tests every lecture gets (test_lectures.py, test_slides.py,
test_handout.py …): what its sections are, what its slides, cover, handout and sources hold, what
its cells print, which figures its drawers made, which numbers its prose may type, what each of its
student scripts prints. The facts are data, `tests/facts/<lecture>.yaml` (its kinds and their meaning
in `tests/facts/schema.yaml`, which every facts file is checked against where it is read); each test
here is one kind, run for every lecture whose facts have it, its id naming the lecture (its scope,
tests/budget.py). Every lecture under lectures/ has a facts file."""
from __future__ import annotations

import re
import subprocess
import zipfile
from functools import cache
from pathlib import Path

import jsonschema
import nbformat
import pytest
import yaml
from jsonschema.exceptions import best_match

import test_handout as handout_policy
from helpers import LECTURES, ROOT, Lecture, pdf_text, script_id
from lecturekit import yamlio
from test_lectures import handout_only_pages
from test_scripts import numbers, same_quantity, skeleton

FACTS = ROOT / "tests" / "facts"
SCHEMA_FILE = FACTS / "schema.yaml"
SCHEMA = yamlio.load(SCHEMA_FILE.read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


class FactsError(Exception):
    """A facts file that does not fit the schema, said at its file:line."""


def read_facts(path: Path) -> dict:
    """The facts file, checked against tests/facts/schema.yaml (a regex checked to compile)."""
    text = path.read_text(encoding="utf-8")
    try:
        facts = yamlio.load(text)
    except yaml.YAMLError as err:  # the parser's own error names the line
        raise FactsError(f"{path}: {err}") from err
    error = best_match(VALIDATOR.iter_errors(facts))
    if error is not None:
        keys, lines = tuple(str(part) for part in error.absolute_path), yamlio.key_lines(text)
        if error.validator == "additionalProperties":  # at the key the schema does not know
            known = error.schema.get("properties", {})
            keys += tuple(str(key) for key in error.instance if key not in known)[:1]
        line = next((lines[keys[:n]] for n in range(len(keys), 0, -1) if keys[:n] in lines), 1)
        where = "/".join(keys) or "the top"
        raise FactsError(f"{path}:{line}: {where}: {error.message}")
    return facts


FACTS_OF = {lecture: read_facts(FACTS / f"{lecture.name}.yaml") for lecture in LECTURES
            if (FACTS / f"{lecture.name}.yaml").is_file()}
KINDS = sorted(SCHEMA["properties"])


def having(kind: str) -> list[Lecture]:
    return [lecture for lecture, facts in FACTS_OF.items() if kind in facts]


def each(kind: str):
    """Parametrised over the lectures whose facts have `kind`, the id naming the lecture."""
    return pytest.mark.parametrize("lecture", having(kind), ids=str)


def each_of(kind: str, items, name: str = "item"):
    """Parametrised over (lecture, item) for each item of `items(facts[kind])`, the id `<lecture>/<item>`."""
    cases = [(lecture, item) for lecture in having(kind) for item in items(FACTS_OF[lecture][kind])]
    return pytest.mark.parametrize(f"lecture, {name}", cases, ids=[f"{lec}/{item}" for lec, item in cases])


def flat(text: str) -> str:
    """Whitespace and curly quotes aside: how a text is found in the handout's copied text, whatever
    its line breaks (test_handout checks the spacing of every printed output)."""
    return handout_policy.squash(text)


@cache
def handout_text(lecture: Lecture) -> str:
    return pdf_text(lecture.product(ROOT / "_output", "handout.pdf"))


@cache
def notebook(lecture: Lecture):
    return nbformat.read(str(lecture.notebook), as_version=4)


def code_cells(lecture: Lecture) -> list:
    return [cell for cell in notebook(lecture).cells if cell.cell_type == "code"]


def printed(cell) -> str:
    """What a cell shows as text: its stdout, and its error as `Name: message`."""
    text = ""
    for output in cell.outputs:
        if output.get("output_type") == "stream" and output.get("name") == "stdout":
            text += output["text"]
        elif output.get("output_type") == "error":
            text += f"{output['ename']}: {output['evalue']}\n"
    return text


def cell_outputs(lecture: Lecture) -> dict[str, str]:
    return {cell.metadata["lecture"]["label"]: printed(cell) for cell in code_cells(lecture)}


def stripped(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


# ---- every lecture has its facts --------------------------------------------------------------

@pytest.mark.parametrize("lecture", LECTURES, ids=str)
def test_every_lecture_has_its_facts(lecture):
    assert lecture in FACTS_OF, f"no tests/facts/{lecture.name}.yaml: every lecture states its facts"


def test_every_facts_file_is_a_lecture_and_every_kind_is_used():
    names = {lecture.name for lecture in LECTURES}
    files = {path.stem for path in FACTS.glob("*.yaml")} - {SCHEMA_FILE.stem}
    assert files <= names, f"facts of no lecture under lectures/: {sorted(files - names)}"
    assert [kind for kind in KINDS if not having(kind)] == [], "a kind no lecture uses would run no test"


def test_a_facts_file_outside_the_schema_is_named_at_its_line(tmp_path):
    bad = tmp_path / "99-bad.yaml"
    good = (FACTS / f"{LECTURES[0].name}.yaml").read_text(encoding="utf-8")
    bad.write_text(good + "handout_holdz: [x]\n", encoding="utf-8")
    with pytest.raises(FactsError, match=rf"99-bad\.yaml:{len(good.splitlines()) + 1}: "):
        read_facts(bad)
    bad.write_text(good.replace("sections:", "sections: 3\nunused:", 1), encoding="utf-8")
    with pytest.raises(FactsError, match=r"99-bad\.yaml:\d+: "):
        read_facts(bad)


# ---- the lecture's shape ----------------------------------------------------------------------

@each("sections")
def test_sections(lecture):
    assert [path.name for path in lecture.sources] == FACTS_OF[lecture]["sections"]


@each("handout_only_pages")
def test_handout_only_pages(rendered, lecture):
    assert len(handout_only_pages(rendered, lecture)) >= FACTS_OF[lecture]["handout_only_pages"]


@each("cell_count")
def test_cell_count(rendered, lecture):
    wanted, cells = FACTS_OF[lecture]["cell_count"], code_cells(lecture)
    assert len(cells) >= wanted["code"]
    printing = [o for cell in cells for o in cell.outputs
                if o.get("output_type") == "stream" and o.get("name") == "stdout" and o["text"].strip()]
    assert len(printing) >= wanted.get("printing", 0)


@each("constructs")
def test_constructs(lecture):
    """The tests of each construct find the lecture (a construct test runs on the lectures using it)."""
    from test_handout import WITH_ANSWERS, WITH_FIGURES
    from test_slides import QUIZZES, STEPPERS
    found = {"steppers": STEPPERS, "quizzes": QUIZZES, "answers": WITH_ANSWERS, "figures": WITH_FIGURES}
    for construct in FACTS_OF[lecture]["constructs"]:
        assert lecture in found[construct], construct


# ---- what the products and sources hold -------------------------------------------------------

@each("slides_hold")
def test_slides_hold(rendered, lecture):
    html = " ".join(lecture.product(rendered, "slides.html").read_text(encoding="utf-8").split())
    missing = [text for text in FACTS_OF[lecture]["slides_hold"] if " ".join(text.split()) not in html]
    assert not missing, f"not in the slides: {missing}"


@each("cover_holds")
def test_cover_holds(rendered, lecture):
    cover = handout_policy.pdf_text_page(lecture.product(rendered, "handout.pdf"), 1)
    missing = [text for text in FACTS_OF[lecture]["cover_holds"] if text not in cover]
    assert not missing, f"not on the handout's cover: {missing}"


@each("handout_holds")
def test_handout_holds(rendered, lecture):
    handout = flat(handout_policy.without_page_furniture(handout_text(lecture)))
    missing = [text for text in FACTS_OF[lecture]["handout_holds"] if flat(text) not in handout]
    assert not missing, f"not in the handout: {missing}"


@each("handout_matches")
def test_handout_matches(rendered, lecture):
    missing = [p for p in FACTS_OF[lecture]["handout_matches"] if not re.search(p, handout_text(lecture), re.M)]
    assert not missing, f"no match in the handout: {missing}"


@each("sources_hold")
def test_sources_hold(lecture):
    for name, texts in FACTS_OF[lecture]["sources_hold"].items():
        source = (lecture.folder / name).read_text(encoding="utf-8")
        missing = [text for text in texts if text not in source]
        assert not missing, f"not in {name}: {missing}"


@each("listed_before")
def test_listed_before(rendered, lecture):
    page = (rendered / "index.html").read_text(encoding="utf-8")
    ours = page.index(f"{lecture.name}/slides.html")
    for later in FACTS_OF[lecture]["listed_before"]:
        assert ours < page.index(f"{later}/slides.html"), later


@each("code_zip")
def test_code_zip(rendered, lecture):
    """The zip holds the lecture's scripts (those its facts list) and the packages they import."""
    with zipfile.ZipFile(lecture.product(rendered, "code.zip")) as zf:
        names = zf.namelist()
    scripts = sorted(Path(n).name for n in names if "/scripts/" in n and n.endswith(".py") and "/_" not in n)
    assert scripts == sorted(FACTS_OF[lecture]["scripts"])
    missing = [p for p in FACTS_OF[lecture]["code_zip"] if f"{lecture.name}/{p}" not in names]
    assert not missing, missing


@each("claims")
def test_claims(rendered, lecture):
    """The output check from the execution cache: every output and claim holds, and so many claims."""
    from lecturekit.check.run import check_lecture
    from lecturekit.project import Project
    checked = check_lecture(Project(ROOT), lecture.folder, update=False)
    assert not checked.failed and not checked.claims_failed
    assert checked.claims_total >= FACTS_OF[lecture]["claims"]


# ---- numbers typed in prose -------------------------------------------------------------------

INLINE = re.compile(r"(?<!`)`\{python\}[^`\n]*`")
CLAIM = re.compile(r'\{\.claim check="[^"]*"\}')
FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")
MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.S)


def typed_numbers(text: str, allowed: list[str]) -> list[str]:
    """Digits the prose types by hand (each with some context): outside code, inline expressions,
    claims, attributes and math, and outside the lecture's allowed patterns (references and names)."""
    allowed_numbers = re.compile("|".join(f"(?:{p})" for p in allowed), re.M) if allowed else None
    text = CLAIM.sub(" ", INLINE.sub(" ", FENCE.sub("\n", text)))
    text = MATH.sub(" ", re.sub(r"\{[#.][^}]*\}", " ", CODE_SPAN.sub(" ", text)))
    hits = []
    for line in text.splitlines():
        line = allowed_numbers.sub(" ", line) if allowed_numbers else line
        hits += [line[max(0, m.start() - 30):m.end() + 10] for m in re.finditer(r"[0-9০-৯]", line)]
    return hits


SECTION_CASES = [(lecture, path) for lecture in having("typed_numbers") for path in lecture.sources]


@pytest.mark.parametrize("lecture, path", SECTION_CASES, ids=[f"{lec}/{p.stem}" for lec, p in SECTION_CASES])
def test_no_number_typed_in_prose(lecture, path):
    hits = typed_numbers(path.read_text(encoding="utf-8"), FACTS_OF[lecture]["typed_numbers"]["allowed"])
    assert not hits, f"{path.name}: numbers typed by hand:\n" + "\n".join(hits)


@each("typed_numbers")
def test_the_typed_number_check_sees_typed_numbers(lecture):
    allowed = FACTS_OF[lecture]["typed_numbers"]["allowed"]
    for typed in FACTS_OF[lecture]["typed_numbers"]["caught"]:
        assert typed_numbers(typed, allowed), typed
    assert not typed_numbers("পর্ব ০৯-এ `{python} bn(x)` আর `lr=1e-3`\n```{python}\nx = 3\n```\n", allowed)


# ---- what the cells print ---------------------------------------------------------------------

@each_of("cells", lambda cells: sorted(cells), "label")
def test_cells(rendered, lecture, label):
    """A cell's printed text (stdout, and its error as `Name: message`) holds what the facts say."""
    fact, out = FACTS_OF[lecture]["cells"][label], cell_outputs(lecture)[label]
    for text in fact.get("holds", []):
        assert text in out, (text, out)
    assert out.startswith(fact.get("starts", "")), out
    assert out.rstrip().endswith(fact.get("ends", "")), out
    for text, count in fact.get("counts", {}).items():
        assert out.count(text) == count, (text, out)
    for pattern in fact.get("matches", []):
        assert re.search(pattern, out, re.M), (pattern, out)
    for found in fact.get("finds", []):
        values = re.findall(found["pattern"], out)
        if "values" in found:
            assert values == found["values"], (found["pattern"], values)
        if "ratios" in found:  # the values in these proportions to the first
            assert len(values) == len(found["ratios"]), values
            first = float(values[0]) / found["ratios"][0]
            for value, ratio in zip(values, found["ratios"]):
                assert float(value) == pytest.approx(ratio * first, rel=1e-6), (values, found["ratios"])
    if fact.get("in_handout"):
        assert flat(out) in flat(handout_policy.without_page_furniture(handout_text(lecture))), label


# ---- the figures its drawers made -------------------------------------------------------------

def graphviz_figures(lecture: Lecture) -> dict[str, str]:
    """Each figure cell's DOT source, by label."""
    found = {}
    for cell in code_cells(lecture):
        for output in cell.outputs:
            dot = output.get("data", {}).get("text/vnd.graphviz")
            if dot:
                found[cell.metadata["lecture"]["label"]] = "".join(dot) if isinstance(dot, list) else dot
    return found


def tensorfig_label_px(svg_text: str) -> float:
    """The smallest label of a tensorfig figure in the slide's own px, once the slide fits the picture
    into its figure box (at most 470 px high, 1150 px wide)."""
    import tensorfig.style as style
    width, height, box_w = (float(v) for v in re.search(
        r'<svg\b[^>]*width="([\d.]+)pt" height="([\d.]+)pt" viewBox="0 0 ([\d.]+)', svg_text).groups())
    fit = min(1.0, 470 / (height * 4 / 3), 1150 / (width * 4 / 3))
    return min(style.TEXT_PT, style.SMALL_PT) * (width / box_w) * 4 / 3 * fit


@each("figures")
def test_figures(rendered, lecture):
    """The drawer drew exactly these figures (the lecture's graphviz figures, each one), from the
    lecture's own objects (what each DOT source holds), into both products: the SVG on the slides,
    the PDF in the handout."""
    fact = FACTS_OF[lecture]["figures"]
    drawer, drawn = fact["drawer"], fact["drawn"]
    dots = graphviz_figures(lecture)
    assert sorted(dots) == sorted(drawn)
    assert all(dot.startswith(f"digraph {drawer}") for dot in dots.values()), f"every figure drawn by {drawer}"
    labels = [cell.metadata["lecture"]["label"] for cell in code_cells(lecture)]
    folder = ROOT / "figures" / lecture.name
    typ = (ROOT / "_build" / lecture.name / f"{lecture.name}.typ").read_text(encoding="utf-8")
    html = lecture.product(rendered, "slides.html").read_text(encoding="utf-8")
    for label, figure in drawn.items():
        dot = dots[label]
        for text in figure.get("holds", []):
            assert text in dot, (label, text)
        for text in figure.get("lacks", []):
            assert text not in dot, (label, text)
        for text, count in figure.get("counts", {}).items():
            assert dot.count(text) == count, (label, text)
        if "before" in figure:
            assert labels.index(label) < labels.index(figure["before"]), label
        svg, pdf = (folder / f"{label}.svg").read_text(encoding="utf-8"), folder / f"{label}.pdf"
        assert pdf.read_bytes().startswith(b"%PDF") and f"{label}.pdf" in typ, label  # the handout prints the PDF
        assert (f'data-cell-label="{label}"' in html) == figure.get("slides", True), label
        if drawer == "tensorfig":
            assert "<text" not in svg, f"{label}: glyphs must be paths"
            assert "cairo" in subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True).stdout.lower()
            assert tensorfig_label_px(svg) >= fact["min_label_px"], f"{label}: labels too small on the slide"
        else:  # graphviz's own text; its size on the slide is test_deck_audit's (in Chromium)
            assert f"<title>{drawer}</title>" in svg, label


# ---- the student scripts ----------------------------------------------------------------------

def script_cases(kind: str):
    cases = [(lecture, ROOT / "code" / "scripts" / lecture.name / name)
             for lecture in having("scripts") for name, fact in FACTS_OF[lecture]["scripts"].items() if kind in fact]
    return pytest.mark.parametrize("lecture, script", cases, ids=[script_id(s) for _l, s in cases])


@each("scripts")
def test_scripts_are_the_listed_ones(lecture):
    folder = ROOT / "code" / "scripts" / lecture.name
    assert sorted(p.name for p in folder.glob("[0-9]*.py")) == list(FACTS_OF[lecture]["scripts"])


@script_cases("cells")
def test_script_prints_its_cells(rendered, lecture, script, script_runs):
    """The script prints what the named cells print (its one run of the session, helpers.ScriptRuns):
    `exactly` their outputs in order; `cells_in_script` each cell's output (or its first lines)
    somewhere in its own; `script_in_cells` every line it prints a line of theirs, in their order.
    The cells' outputs are in the handout."""
    fact = FACTS_OF[lecture]["scripts"][script.name]
    run = script_runs.of(script)
    assert run.returncode == 0, run.stderr
    outputs = cell_outputs(lecture)
    cells = [outputs[label] for label in fact["cells"]]
    if "first_lines" in fact:
        cells = ["".join(cell.splitlines(keepends=True)[:fact["first_lines"]]) for cell in cells]
    ours = stripped(run.stdout)
    if fact["match"] == "exactly":
        assert ours == stripped("".join(cells))
    elif fact["match"] == "cells_in_script":
        for label, cell in zip(fact["cells"], cells):
            assert cell.strip() and stripped(cell) in ours, label
    else:
        theirs = iter(stripped("".join(cells)).splitlines())
        missing = [line for line in ours.splitlines() if line.strip() and line not in theirs]
        assert not missing, f"printed, not by the cells (in their order): {missing}"
    handout = flat(handout_policy.without_page_furniture(handout_text(lecture)))
    for label, cell in zip(fact["cells"], cells):
        assert flat(cell) in handout, label


@script_cases("run_with")
def test_script_run_with_arguments(lecture, script, script_runs):
    """The script run with arguments (a flag that writes a file): what it prints, what it writes."""
    fact = FACTS_OF[lecture]["scripts"][script.name]["run_with"]
    run = script_runs.of(script, tuple(fact["args"]))
    assert run.returncode == 0, run.stderr
    missing = [text for text in fact.get("prints", []) if text not in run.stdout]
    assert not missing, missing
    for name, wanted in fact.get("writes", {}).items():
        written = run.written.get(name)
        assert written, f"{name} not written (left: {run.left})"
        assert written["bytes"] >= wanted.get("min_bytes", 1), (name, written)
        assert bytes.fromhex(written["head"]).startswith(bytes.fromhex(wanted.get("starts_hex", ""))), name


@each("script_lines_shown")
def test_script_lines_shown(rendered, lecture, script_runs):
    """So many lines the lecture's scripts print report a quantity its cells print (same words, same
    count of numbers), and each prints it exactly as the cell does."""
    shown: dict[str, list[str]] = {}
    for text in cell_outputs(lecture).values():
        for line in text.splitlines():
            if numbers(line) and skeleton(line):
                shown.setdefault(skeleton(line), []).append(line.rstrip())
    matched, disagree = 0, []
    for name in FACTS_OF[lecture]["scripts"]:
        run = script_runs.of(ROOT / "code" / "scripts" / lecture.name / name)
        assert run.returncode == 0 and run.stdout.strip(), f"{name}: {run.stderr}"
        for line in run.stdout.splitlines():
            lines = shown.get(skeleton(line), [])
            if not numbers(line) or not lines:
                continue
            matched += 1
            if line.rstrip() not in lines:
                close = [s for s in lines if same_quantity(numbers(line), numbers(s))]
                if close:
                    disagree.append(f"{name}: {line.strip()} | lecture: {close[0].strip()}")
    assert matched >= FACTS_OF[lecture]["script_lines_shown"], matched
    assert not disagree, "\n".join(disagree)
