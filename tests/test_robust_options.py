"""Options are data: each is checked against its schema where it is read (scripts/lecturekit/schemas/),
with its file:line, and what is read is bounded (includes, YAML aliases, sizes, numbers).

Read-stage cases: no kernel, no pandoc. The render CLI runs once, over a batch of broken lectures,
to prove each is one line with no traceback."""
import resource
import signal
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from helpers import FRONT, NO_QUARTO, RENDER
from lecturekit import schema
from lecturekit.errors import LectureError
from lecturekit.project import Project
from lecturekit.read.qmd import read_lecture
from lecturekit.write.formats import FORMATS, check_format_options

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def lecture(project_builder):
    def write(body, front=FRONT, name="01-demo", sections=None):
        folder = project_builder.add_lecture(name, body, front=front, sections=sections)
        return folder / "index.qmd"
    write.project = project_builder
    return write


def line_of(path, needle):
    return next(n for n, text in enumerate(Path(path).read_text(encoding="utf-8").split("\n"), 1) if needle in text)


def _alarm(signum, frame):
    raise TimeoutError("still reading: nothing bounded it")


def stopped(call, seconds):
    """The LectureError `call()` raises within `seconds` (a read that nothing bounds is stopped at
    four times that, and fails the test)."""
    started = time.monotonic()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds * 4)
    try:
        with pytest.raises(LectureError) as caught:
            call()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    took = time.monotonic() - started
    assert took < seconds, f"{took:.1f} s: {caught.value}"
    return caught.value


def refused(call, path, needle, *texts, seconds=5.0):
    """`call()` raises one LectureError naming path:line of `needle`, within `seconds`."""
    err = stopped(call, seconds)
    message = str(err)
    assert Path(err.file).name == Path(path).name, message
    assert err.line == line_of(path, needle), (line_of(path, needle), message)
    assert "\n" not in message, message
    for text in texts:
        assert text in message, message
    return message


def read_and_format(index, project):
    """What a render does with a lecture before any kernel starts: read it, check its formats."""
    lecture = read_lecture(index, project.root)
    check_format_options(Project(project.root), lecture)


CELL = "# এক {{#sec-one}}\n\n```{{python}}\n#| label: one\n#| {option}\nprint(1)\n```\n"

# ---- kind 2: script from options ------------------------------------------------------------------

# A cell option that would be pasted into an attribute, or reach the kernel or the cache key.
BAD_CELL_OPTIONS = {
    # class-output is pasted into the fence's attributes: `}` ends them and printed text becomes markup
    "class-output brace": ('class-output: "x}y"', "class-output", "not allowed here"),
    "class-output attribute": ("class-output: 'python onload=alert(1)'", "class-output", "class names"),
    "class-output quote": ("class-output: 'a\" onclick=\"alert(1)'", "class-output", "class names"),
    "class-output newline": ('class-output: "a\\n\\n<script>alert(1)</script>"', "class-output", "class names"),
    "code-line-numbers brace": ('code-line-numbers: "1}{onclick=alert(1)"', "code-line-numbers", "highlight step"),
    "fig-width text": ("fig-width: wide", "fig-width", "wrong type"),
    "fig-width inf": ("fig-width: .inf", "fig-width", "finite number"),
    "fig-width huge": ("fig-width: 1.0e+400", "fig-width", "finite number"),
    "fig-height negative": ("fig-height: -3", "fig-height", "at least 0.5"),
    "fig-width a speck": ("fig-width: 1.0e-300", "fig-width", "at least 0.5"),
    "echo text": ("echo: fenced", "echo", "true or false"),
    "unknown, nearest named": ("fig-widht: 3", "fig-widht", "did you mean 'fig-width'"),
    "unknown Quarto option": ("fig-dpi: 300", "fig-dpi", "outside the supported subset"),
}


@pytest.mark.parametrize("case", sorted(BAD_CELL_OPTIONS))
def test_a_cell_option_outside_its_schema_is_refused_at_its_line(lecture, case):
    option, needle, text = BAD_CELL_OPTIONS[case]
    index = lecture(CELL.format(option=option))
    refused(lambda: read_lecture(index, lecture.project.root), index, needle, text)


# Numbers that would mean "no limit", a traceback or nothing at all.
BAD_NUMBERS = {
    "timeout -1": ("timeout: -1", "more than 0"),
    "timeout 0": ("timeout: 0", "more than 0"),
    "timeout inf": ("timeout: .inf", "finite number"),
    "timeout nan": ("timeout: .nan", "finite number"),
    "timeout NaN spelled": ("timeout: .NaN", "finite number"),
    "timeout text": ('timeout: "10"', "wrong type"),
    "timeout true": ("timeout: true", "wrong type"),
    "timeout a year": ("timeout: 31536000", "at most 86400"),
    "tolerance nan": ('tolerance: {rel: .nan, why: "x"}', "finite number"),
    "tolerance nan as text": ('tolerance: {rel: "nan", why: "x"}', "finite number"),
    "tolerance inf abs": ('tolerance: {abs: .inf, why: "x"}', "finite number"),
    "tolerance negative": ('tolerance: {rel: -1.0e-6, why: "x"}', "at least 0"),
    "tolerance without why": ("tolerance: {rel: 1.0e-6}", "needs 'why'"),
    "tolerance a number": ("tolerance: 1.0e-6", "wrong type"),
    "tolerance unknown key": ('tolerance: {relative: 0.1, why: "x"}', "did you mean 'rel'"),
}


@pytest.mark.parametrize("case", sorted(BAD_NUMBERS))
def test_numbers_are_finite_and_in_range(lecture, case):
    option, text = BAD_NUMBERS[case]
    index = lecture(CELL.format(option=option))
    refused(lambda: read_lecture(index, lecture.project.root), index, option.split(":")[0], text)


def test_front_matter_that_fits_is_read(lecture):
    index = lecture("# এক {#sec-one}\n\nলেখা।\n", front=front(
        "code: [scripts/01-demo, bazar/model.py]\nauthor: [{name: ক, affiliation: খ}]\ndate: 2026-01-05\n"
        "format:\n  revealjs:\n    theme: serif\n    menu: {side: right}\n  typst:\n    margin: {x: 2cm}\n"))
    read_and_format(index, lecture.project)


def test_numbers_in_range_are_read_as_numbers(lecture):
    """1e-6 (which YAML 1.1 leaves a string) is the number; a fractional timeout is fine."""
    index = lecture(CELL.format(option='tolerance: {rel: 1e-6, abs: "2e-8", why: "AVX2 sums in another order"}\n'
                                       "#| timeout: 2.5\n#| fig-width: 4\n#| class-output: python extra\n"
                                       '#| code-line-numbers: "|1|1-1,1"'))
    cell = read_lecture(index, lecture.project.root).cells[0]
    assert cell.options["tolerance"] == {"rel": 1e-6, "abs": 2e-8, "why": "AVX2 sums in another order"}
    assert cell.options["timeout"] == 2.5


def front(extra):
    return FRONT[:-4] + textwrap.dedent(extra) + "---\n"


BAD_FRONT_MATTER = {
    # reveal.js settings are pasted into Reveal.initialize({...}) as JavaScript
    "transition script": ("format:\n  revealjs:\n    transition: \"none', x: alert(1), y: '\"\n", "transition:",
                          "it takes one of: none, fade"),
    "slide-number script": ("format:\n  revealjs:\n    slide-number: \"c/t'+alert(1)+'\"\n", "slide-number:",
                            "it takes one of"),
    "controls bare word": ("format:\n  revealjs:\n    controls: auto\n", "controls:", "true or false"),
    "width text": ("format:\n  revealjs:\n    width: \"100, x: alert(1)\"\n", "width:", "finite number"),
    "width inf": ("format:\n  revealjs:\n    width: .inf\n", "width:", "finite number"),
    "margin nan": ("format:\n  revealjs:\n    margin: .nan\n", "margin:", "finite number"),
    "menu option script": ("format:\n  revealjs:\n    menu:\n      side: \"left\\u0022});alert(1);//\"\n",
                           "side:", "it takes one of: left, right"),
    "menu unknown option": ("format:\n  revealjs:\n    menu:\n      sidee: left\n", "sidee:", "did you mean 'side'"),
    "theme path": ("format:\n  revealjs:\n    theme: ../../../etc/x\n", "theme:", "theme"),
    "css outside": ("format:\n  revealjs:\n    css: ../../secret.css\n", "css:", "outside the project"),
    "unknown revealjs option": ("format:\n  revealjs:\n    trasition: fade\n", "trasition:",
                                "'revealjs: trasition' is outside the supported subset (did you mean 'transition'?"),
    # typst settings reach Typst code
    "mainfont code": ("format:\n  typst:\n    mainfont: 'x\"); #panic(\"x'\n", "mainfont:", "a font family"),
    "fontsize code": ("format:\n  typst:\n    fontsize: \"11pt) #x\"\n", "fontsize:", "a length"),
    "toc-depth big": ("format:\n  typst:\n    toc-depth: 99\n", "toc-depth:", "at most 6"),
    # front-matter keys written into the handout's Typst code as numbers
    "episode Bengali digits": ('episode: "০৯"\n', "episode:", "whole number"),
    "episode code": ('episode: "1, title: [x]) #panic(\\"x\\")"\n', "episode:", "whole number"),
    "episodes inf": ("episodes: .inf\n", "episodes:", "whole number"),
    "module fraction": ("module: 1.5\n", "module:", "whole number"),
    "lang attribute": ("lang: 'bn\" onload=\"alert(1)'\n", "lang:", "language tag"),
    "unknown key, nearest named": ("titel: x\n", "titel:", "did you mean 'title'"),
    # the lecture's downloadable code, zipped for students: under code/
    "code outside": ("code: ../../../etc\n", "code:", "outside the project"),
    "code absolute": ("code:\n  - scripts/a.py\n  - /etc/passwd\n", "/etc/passwd", "outside the project"),
}


@pytest.mark.parametrize("case", sorted(BAD_FRONT_MATTER))
def test_front_matter_outside_its_schema_is_refused_at_its_line(lecture, case):
    extra, needle, text = BAD_FRONT_MATTER[case]
    text_front = front(extra)
    if text_front.count("episode:") > 1:  # the case replaces the fixture's own key
        text_front = FRONT.replace("episode: 1\n", "")[:-4] + extra + "---\n"
    index = lecture("# এক {#sec-one}\n\nলেখা।\n", front=text_front)
    refused(lambda: read_and_format(index, lecture.project), index, needle, text)


BAD_PROJECT = {
    "timeout -1": ("  timeout: 120", "  timeout: -1", "timeout:", "more than 0"),
    "timeout inf": ("  timeout: 120", "  timeout: .inf", "timeout:", "finite number"),
    "timeout nan": ("  timeout: 120", "  timeout: .nan", "timeout:", "finite number"),
    "max-output text": ("  timeout: 120", "  timeout: 120\n  max-output: lots", "max-output:", "whole number"),
    "max-output none": ("  timeout: 120", "  timeout: 120\n  max-output: 0", "max-output:", "at least 1000"),
    "setting misspelt": ("  timeout: 120", "  timout: 120", "timout:", "did you mean 'timeout'"),
    "key misspelt": ("lecturekit:", "lecturkit:", "lecturkit:", "did you mean 'lecturekit'"),
    "format option script": ("    transition: none", "    transition: \"none'});alert(1);({x:'\"", "transition:",
                             "it takes one of"),
    "format option misspelt": ("    transition: none", "    transiton: none", "transiton:",
                               "'revealjs: transiton' is outside the supported subset (did you mean 'transition'?"),
    "alias bomb": ("lecturekit:\n  timeout: 120",
                   "lecturekit:\n  timeout: 120\nlang: &a [x, x, x, x, x, x, x, x, x]\ntitle: &b [*a, *a, *a, *a, *a]",
                   "lang: &a", "anchors and aliases"),
}


@pytest.mark.parametrize("case", sorted(BAD_PROJECT))
def test_quarto_yml_outside_its_schema_is_refused_at_its_line(lecture, case):
    old, new, needle, text = BAD_PROJECT[case]
    index = lecture("# এক {#sec-one}\n\nলেখা।\n")
    config = lecture.project.root / "_quarto.yml"
    source = config.read_text(encoding="utf-8")
    assert old in source
    config.write_text(source.replace(old, new, 1), encoding="utf-8")
    refused(lambda: read_and_format(index, lecture.project), config, needle, text)


def test_the_real_project_and_lectures_fit_their_schemas():
    project = Project(ROOT)
    assert project.setting("timeout") == 120
    lectures = project.lectures()
    assert lectures
    for folder in lectures:
        check_format_options(project, read_lecture(folder / "index.qmd", ROOT))


def test_every_format_has_a_schema_of_exactly_its_options():
    """A format's options reach pandoc's template: each format record has its schema, naming exactly
    the options the record converts (a new format or option needs its schema)."""
    for fmt in FORMATS.values():
        assert schema.has(f"format-{fmt.name}"), fmt.name
        assert set(schema.load(f"format-{fmt.name}")["properties"]) == set(fmt.options), fmt.name


def test_the_cell_options_schema_is_the_documented_subset():
    documented = ROOT.joinpath("docs", "authoring.md").read_text(encoding="utf-8")
    line = next(l for l in documented.splitlines() if l.startswith("| `#|` cell options"))
    for option in schema.load("cell-options")["properties"]:
        assert f"{option}" in line, option


# ---- kind 4: what is read is bounded -----------------------------------------------------------

def test_includes_that_fan_out_stop_at_once(lecture):
    """Each file includes the next twice: 2^30 reads without a bound."""
    sections = {f"_p{i}.qmd": f"{{{{< include _p{i + 1}.qmd >}}}}\n{{{{< include _p{i + 1}.qmd >}}}}\n"
                for i in range(30)}
    sections["_p30.qmd"] = "লেখা।\n"
    index = lecture("# এক {#sec-one}\n\n{{< include _p0.qmd >}}\n", sections=sections)
    refused(lambda: read_lecture(index, lecture.project.root), index.parent / "_p7.qmd", "include",
                      "nested more than", seconds=3)


def test_a_wide_fan_of_shallow_includes_stops_at_once(lecture):
    """Depth 3, each file including the next 20 times: 8,000 reads; the total is bounded."""
    sections = {f"_w{i}.qmd": "".join(f"{{{{< include _w{i + 1}.qmd >}}}}\n" for _ in range(20)) for i in range(3)}
    sections["_w3.qmd"] = "লেখা।\n"
    index = lecture("# এক {#sec-one}\n\n{{< include _w0.qmd >}}\n", sections=sections)
    err = stopped(lambda: read_lecture(index, lecture.project.root), seconds=3)
    assert Path(err.file).name == "_w2.qmd" and err.line and "more than 200 includes" in str(err), err


def test_a_thousand_nested_includes_are_one_line(lecture):
    sections = {f"_n{i}.qmd": f"{{{{< include _n{i + 1}.qmd >}}}}\n" for i in range(1000)}
    sections["_n1000.qmd"] = "লেখা।\n"
    index = lecture("# এক {#sec-one}\n\n{{< include _n0.qmd >}}\n", sections=sections)
    message = refused(lambda: read_lecture(index, lecture.project.root), index.parent / "_n7.qmd", "include",
                      "nested more than 8 deep", seconds=3)
    assert "Recursion" not in message


def test_big_sources_are_refused_unread(lecture):
    index = lecture("# এক {#sec-one}\n\n{{< include _big.qmd >}}\n",
                    sections={"_big.qmd": "লেখা।\n" * 300_000})
    refused(lambda: read_lecture(index, lecture.project.root), index, "_big.qmd", "more than a source may")
    (index.parent / "big.py").write_text("x = 1\n" * 400_000)
    index = lecture("# এক {#sec-one}\n\n```{python}\n#| label: big\n#| file: big.py\n```\n")
    refused(lambda: read_lecture(index, lecture.project.root), index, "```{python}", "more than a source may")


def _laughs(anchor_line):
    """YAML that expands to 10^9 values: ten aliases of ten aliases, nine times."""
    lines = [f"{anchor_line}: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 9)]
    return lines


def _bounded_memory(call, megabytes=600):
    """Run call() with the address space capped: a billion laughs would not fit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    used = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (used + megabytes * 2**20, hard))
    try:
        return call()
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def test_yaml_aliases_in_a_cell_option_are_refused(lecture):
    laughs = _laughs("tolerance")
    option = "tolerance:\n#|   rel: 0.1\n#|   why: x\n#|   bomb: &l0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"#| l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]\n" for i in range(1, 9))
    assert laughs  # the same bomb, written as option lines
    index = lecture(CELL.format(option=option.rstrip("\n")))
    refused(lambda: _bounded_memory(lambda: read_lecture(index, lecture.project.root)), index, "bomb: &l0",
            "anchors and aliases")


def test_yaml_aliases_in_the_front_matter_are_refused(lecture):
    extra = "\n".join(_laughs("keywords")) + "\n"
    index = lecture("# এক {#sec-one}\n\nলেখা।\n", front=front(extra))
    refused(lambda: _bounded_memory(lambda: read_lecture(index, lecture.project.root)), index, "keywords: &l0",
            "anchors and aliases")


def test_yaml_nested_deeper_than_any_option_needs_is_refused(lecture):
    """`[[[[…]]]]` a thousand deep ended the loader in a RecursionError."""
    index = lecture(CELL.format(option="tolerance: " + "[" * 900 + "]" * 900))
    refused(lambda: read_lecture(index, lecture.project.root), index, "tolerance: [[", "nested more than 32 deep")
    index = lecture("# এক {#sec-one}\n\nলেখা।\n", front=front("keywords: " + "{a: " * 40 + "x" + "}" * 40 + "\n"))
    refused(lambda: read_lecture(index, lecture.project.root), index, "keywords:", "nested more than 32 deep")


def test_a_value_that_only_looks_like_an_alias_is_text(lecture):
    index = lecture(CELL.format(option='fig-cap: "দাম *বেশি* & কম"'), front=front('subtitle: "a & b * c"\n'))
    read_lecture(index, lecture.project.root)


# ---- kind 7: a byte-order mark loses nothing ------------------------------------------------------

def test_a_byte_order_mark_at_the_start_loses_nothing(lecture):
    index = lecture("# এক {#sec-one}\n\n{{< include _a.qmd >}}\n",
                    sections={"_a.qmd": "## দুই {#sec-two}\n\nলেখা।\n"})
    for path in (index, index.parent / "_a.qmd"):
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    read = read_lecture(index, lecture.project.root)
    assert read.meta["title"] == "পরীক্ষার লেকচার"
    section = next(b for b in read.blocks if str(b.file).endswith("_a.qmd"))
    assert section.text.startswith("## দুই {#sec-two}"), section.text[:20]
    assert "\ufeff" not in "".join(getattr(b, "text", "") for b in read.blocks)


def test_a_byte_order_mark_inside_a_file_is_refused_at_its_line(lecture):
    index = lecture("# এক {#sec-one}\n\nলেখা।\n\n\ufeff## দুই {#sec-two}\n\nলেখা।\n")
    refused(lambda: read_lecture(index, lecture.project.root), index, "দুই", "byte-order mark")


# ---- through the command: one line each, no traceback, the others still listed -----------------

def test_the_render_names_each_broken_option_in_one_line(project_builder):
    cases = {
        "01-class": CELL.format(option='class-output: "x}y"'),
        "02-timeout": CELL.format(option="timeout: -1"),
        "03-transition": ("# এক {#sec-one}\n\nলেখা।\n", "format:\n  revealjs:\n    transition: \"x'\"\n"),
        "04-laughs": CELL.format(option="tolerance: &a [x, x]\n#| file: *a"),
        "05-fan": "# এক {#sec-one}\n\n{{< include _p0.qmd >}}\n",
    }
    for name, body in cases.items():
        body, extra = body if isinstance(body, tuple) else (body, "")
        sections = {f"_p{i}.qmd": f"{{{{< include _p{i + 1}.qmd >}}}}\n" * 2 for i in range(30)} if name == "05-fan" else None
        project_builder.add_lecture(name, body, front=front(extra), sections=sections)
    started = time.monotonic()
    result = subprocess.run([RENDER, "--quiet"], cwd=project_builder.root, capture_output=True, text=True,
                            timeout=120)
    seconds = time.monotonic() - started
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr, result.stderr
    for name, needle in (("01-class", "class-output"), ("02-timeout", "timeout"), ("03-transition", "transition"),
                         ("04-laughs", "anchors and aliases"), ("05-fan", "nested more than")):
        lines = [l for l in result.stderr.splitlines() if f"lectures/{name}/" in l and needle in l]
        assert len(lines) >= 1, (name, result.stderr)
    assert f"{len(cases)} failed" in result.stderr, result.stderr
    assert seconds < 60, seconds


# ---- under `quarto render`: a lecture that sets one format's option still gets every product ------

from test_quarto import QUARTO  # noqa: E402  ($QUARTO, or quarto on PATH)


@pytest.mark.skipif(QUARTO is None, reason=NO_QUARTO)
def test_a_lecture_that_sets_one_revealjs_option_still_gets_its_handout_from_quarto(tmp_path):
    """Quarto renders only the formats a document lists: `format: revealjs: theme: …` in a front
    matter dropped the handout, with exit 0 and no warning. The executed notebook lists every
    format of _quarto.yml (the others as `default`), so both products appear."""
    import os
    import shutil
    from lecturekit.course.scaffold.projects import ProjectBuilder
    builder = ProjectBuilder(tmp_path / "project", ROOT)
    shutil.copytree(ROOT / "scripts", builder.root / "scripts",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    for name in ("pyproject.toml", "package.json"):
        shutil.copy(ROOT / name, builder.root / name)
    (builder.root / ".venv").symlink_to(ROOT / ".venv")
    body = "\n## একটি স্লাইড {#sec-one}\n\nপ্রথম বাক্য।\n\n```{python}\n#| label: answer\nprint(6 * 7)\n```\n"
    builder.add_lecture("01-themed", body, front="---\ntitle: থিম\nformat:\n  revealjs:\n    theme: dracula\n---\n")
    builder.add_lecture("02-papered", body, front="---\ntitle: কাগজ\nformat:\n  typst:\n    papersize: a5\n---\n")
    env = {**os.environ, "QUARTO_PYTHON": str(ROOT / ".venv" / "bin" / "python")}
    result = subprocess.run([QUARTO, "render"], cwd=builder.root, env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    for lecture in ("01-themed", "02-papered"):
        for product in ("slides.html", "handout.pdf"):
            assert builder.output(lecture, product).is_file(), (lecture, product, result.stderr[-2000:])
    assert "282a36" in builder.output("01-themed", "slides.html").read_text(encoding="utf-8")  # dracula's background
