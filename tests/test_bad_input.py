"""Bad input: a clear `file:line: what`, exit 1, and the previous products untouched, never a traceback.

Also what must hold when the input is fine but the circumstances are not: two renders at once, a
cell that floods its output, Ctrl-C in any stage, a project copied to another folder.
"""
import os
import shutil
import signal
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from helpers import FRONT, RENDER, MiniProject, processes_under, start_render, start_slow_handout
from test_pipeline import GOOD, line_of


def assert_named(result, path, line, *expected):
    """One message naming path:line (±0), exit 1, no Python traceback."""
    message = result.stderr
    assert result.returncode == 1, message
    assert "Traceback (most recent call last)" not in message, message
    assert f"{path.name}:{line}:" in message, (line, message)
    for text in expected:
        assert text in message, message


def assert_untouched(mini, before):
    assert (mini.slides.read_bytes(), mini.handout.read_bytes()) == before


def products(mini):
    return mini.slides.read_bytes(), mini.handout.read_bytes()


# ---- reading the sources ------------------------------------------------------------------------

def test_include_of_a_folder_is_named(copy):
    before = products(copy)
    (copy.lecture / "parts").mkdir()
    copy.write(GOOD + "\n{{< include parts >}}\n")
    index = copy.lecture / "index.qmd"
    assert_named(copy.render(), index, line_of(index, "include parts"), "is a folder")
    assert_untouched(copy, before)


def test_include_outside_the_project_is_refused(copy):
    before = products(copy)
    outside = os.path.relpath("/etc/passwd", copy.lecture)
    assert outside.startswith("../../")
    copy.write(GOOD + f"\n{{{{< include {outside} >}}}}\n")
    index = copy.lecture / "index.qmd"
    result = copy.render()
    assert_named(result, index, line_of(index, "etc/passwd"), "outside the project")
    assert "root:" not in result.stderr
    assert_untouched(copy, before)


def test_cell_file_outside_the_project_is_refused(copy):
    copy.write(GOOD + "\n```{python}\n#| label: stolen\n#| file: /etc/hostname\n```\n")
    index = copy.lecture / "index.qmd"
    assert_named(copy.render(), index, line_of(index, "```{python}", 2), "absolute path")


def test_non_utf8_source_is_named_with_its_line(copy):
    before = products(copy)
    copy.write(GOOD)
    index = copy.lecture / "index.qmd"
    data = index.read_bytes().replace("বাজারের".encode(), "বাজারের".encode() + b" \xff\xfe ", 1)
    index.write_bytes(data)
    bad_line = data[:data.index(b"\xff")].count(b"\n") + 1
    assert_named(copy.render(), index, bad_line, "not UTF-8", "0xff")
    assert_untouched(copy, before)


def test_non_utf8_section_is_named_with_its_line(copy):
    copy.write(GOOD + "\n{{< include _part.qmd >}}\n")
    (copy.lecture / "_part.qmd").write_bytes(b"## Part {#sec-part}\n\ncaf\xe9 latin-1\n")
    assert_named(copy.render(), copy.lecture / "_part.qmd", 3, "not UTF-8")


# ---- front matter and YAML ----------------------------------------------------------------------

def front(extra):
    """The fixture's front matter with extra lines before its closing '---'."""
    return FRONT[:-4] + textwrap.dedent(extra) + "---\n"


FRONT_MATTER_CASES = {
    # name: (front matter, the text on the line to blame, what the message says)
    "unknown revealjs option": (front("format:\n  revealjs:\n    slide-numbr: true\n"), "slide-numbr",
                                "'revealjs: slide-numbr' is outside the supported subset"),
    "unknown typst option": (front("format:\n  typst:\n    papersize: a4\n    fontsise: 10pt\n"), "fontsise",
                             "'typst: fontsise'"),
    "unknown format": (front("format:\n  pdf:\n    toc: true\n"), "pdf:", "format 'pdf' is not one"),
    "unknown top-level key": (front("episod: 3\n"), "episod: 3", "front-matter key 'episod'"),
    "unclosed quote": ('---\ntitle: "পরীক্ষার লেকচার\ncourse: x\nepisode: 1\nmodule: 1\n---\n', "title:",
                       "malformed YAML front matter"),
    "unclosed bracket": ("---\ntitle: x\ncourse: [a, b\nepisode: 1\nmodule: 1\nepisodes: 2\n---\n", "course:",
                         "malformed YAML front matter"),
}


@pytest.mark.parametrize("case", sorted(FRONT_MATTER_CASES))
def test_front_matter_errors_are_blamed_on_the_lecture_line(copy, case):
    before = products(copy)
    text, needle, expected = FRONT_MATTER_CASES[case]
    copy.write(GOOD, front=text)
    index = copy.lecture / "index.qmd"
    result = copy.render()
    assert_named(result, index, line_of(index, needle), expected)
    assert "_quarto.yml" not in result.stderr.split("\n")[-2]
    assert_untouched(copy, before)


def test_quarto_document_keys_are_accepted(copy):
    copy.write(GOOD, front=front('author: "শিক্ষক"\ndate: 2026-01-05\nsubtitle: "উপশিরোনাম"\n'
                                 'description: "ছোট বর্ণনা"\nlang: bn\nformat:\n  revealjs: default\n'))
    result = copy.render()
    assert result.returncode == 0, result.stderr


def test_quarto_yml_errors_name_their_line(copy):
    config = copy.root / "_quarto.yml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("    papersize: a4\n", "    papersize: a4\n    paper-size: a5\n"), encoding="utf-8")
    assert_named(copy.render(), config, line_of(config, "paper-size"), "'typst: paper-size'")
    config.write_text(text.replace("  revealjs:\n", "  docx:\n  revealjs:\n"), encoding="utf-8")
    assert_named(copy.render(), config, line_of(config, "docx:"), "format 'docx' is not one")
    config.write_text(text.replace("  timeout: 120", "  timeout: [120"), encoding="utf-8")
    assert_named(copy.render(), config, line_of(config, "timeout: [120"), "malformed YAML")


def test_cell_option_yaml_error_points_at_the_opening_quote(copy):
    copy.write(GOOD + '\n```{python}\n#| label: q\n#| fig-cap: "open\n#| echo: false\n#| eval: true\nprint(1)\n```\n')
    index = copy.lecture / "index.qmd"
    assert_named(copy.render(), index, line_of(index, 'fig-cap: "open'), "malformed '#|' cell options")


# ---- circumstances ------------------------------------------------------------------------------

def test_two_renders_at_once_both_succeed(mini):
    """Both runs share _build/demo/: today one dies with 'Kernel didn't respond'. Now the second
    waits for the first and then finds its execution in the cache."""
    mini.write(GOOD)
    runs = [start_render(mini), start_render(mini)]
    outcomes = [run.communicate(timeout=300) for run in runs]
    for run, (_out, err) in zip(runs, outcomes):
        assert run.returncode == 0, err
        assert "Invalid Signature" not in err and "didn't respond" not in err
    logs = [err for _out, err in outcomes]
    assert sum("waiting for another render of demo" in log for log in logs) == 1, logs
    assert sum("(executed)" in log for log in logs) == 1, logs
    assert mini.handout.read_bytes().startswith(b"%PDF") and b"</html>" in mini.slides.read_bytes()
    assert list((mini.root / "_build" / "demo" / "run").glob("kernel*")) == []


def test_a_flood_of_output_is_stopped_and_named(copy):
    """20 MB of print: today Typst runs for a quarter of an hour. The cell is stopped at the limit."""
    before = products(copy)
    copy.write(GOOD + '\n```{python}\n#| label: flood\nfor i in range(200_000):\n    print("x" * 99)\n```\n')
    index = copy.lecture / "index.qmd"
    run = start_render(copy, start_new_session=True)
    try:
        _out, err = run.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        raise AssertionError("a flood of output kept the render busy for 2 minutes")
    result = subprocess.CompletedProcess(run.args, run.returncode, _out, err)
    assert_named(result, index, line_of(index, "```{python}", 2), "[cell flood]", "limit of 500,000 bytes",
                 "max-output")
    assert_untouched(copy, before)


def test_products_are_replaced_together_or_not_at_all(copy):
    """The handout fails (a header Typst cannot parse) after the slides were made: neither is
    replaced, so the slides never show prose the handout does not have."""
    before = products(copy)
    (copy.root / "broken.typ").write_text("#let broken = (\n", encoding="utf-8")
    copy.write(GOOD.replace("খাতায় ওঠে", "খাতায় লেখা হয়"),
               front=front("format:\n  typst:\n    include-in-header: broken.typ\n"))
    result = copy.render()
    assert result.returncode == 1 and "typst could not compile" in result.stderr, result.stderr
    assert_untouched(copy, before)
    assert not list((copy.root / "_output" / "demo").glob(".*.tmp"))
    copy.write(GOOD.replace("খাতায় ওঠে", "খাতায় লেখা হয়"))
    assert copy.render().returncode == 0
    assert "খাতায় লেখা হয়" in copy.slides.read_text(encoding="utf-8")


def interrupt_when(mini, run, ready, what, group=True):
    """Ctrl-C (SIGINT to the render's process group, as a terminal sends it; with group=False to
    the render alone, as `kill -INT` does) once ready() holds; return the seconds until it exited."""
    deadline = time.monotonic() + 120
    while not ready():
        assert run.poll() is None, run.communicate()
        assert time.monotonic() < deadline, f"never reached {what}"
        time.sleep(0.05)
    time.sleep(0.3)  # well inside the stage
    sent = time.monotonic()
    if group:
        os.killpg(run.pid, signal.SIGINT)
    else:
        os.kill(run.pid, signal.SIGINT)
    try:
        run.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        raise AssertionError(f"Ctrl-C in {what} did not stop the render within 10 s")
    return time.monotonic() - sent


def test_ctrl_c_stops_the_kernel_stage_within_a_second(copy):
    before = products(copy)
    copy.write(GOOD + '\n```{python}\n#| label: slow\nimport time\nfor _ in range(600):\n    time.sleep(0.1)\n```\n')
    run = start_render(copy, quiet=False, start_new_session=True)
    log = copy.root / "_build" / "demo"
    seen = []

    def cell_started():
        # Progress lines arrive on stderr; the slow cell is the second one.
        line = run.stderr.readline()
        seen.append(line)
        return "cell 2/2 slow" in line
    seconds = interrupt_when(copy, run, cell_started, "the kernel stage")
    err = "".join(seen) + run.stderr.read()
    print(f"stopped {seconds:.2f} s after Ctrl-C")
    assert seconds < 1.0, (seconds, err)
    assert run.returncode == 130 and "interrupted" in err, err
    assert "Traceback" not in err, err
    assert processes_under(copy.root) == []
    assert_untouched(copy, before)
    assert log.exists()


def test_ctrl_c_stops_typst_within_a_second(copy):
    """A handout that takes Typst a long time (3 MB of output, allowed here): Ctrl-C while it compiles."""
    before = products(copy)
    run, typst_busy = start_slow_handout(copy, GOOD)
    seconds = interrupt_when(copy, run, typst_busy, "Typst")
    err = run.stderr.read()
    print(f"stopped {seconds:.2f} s after Ctrl-C")
    assert seconds < 1.0, (seconds, err)
    assert run.returncode == 130, err
    assert processes_under(copy.root) == []
    assert_untouched(copy, before)
    assert not list((copy.root / "_output" / "demo").glob(".*.tmp"))


def test_ctrl_c_stops_parallel_lectures_within_a_second(mini):
    """Two lectures executing in worker processes: SIGINT to the render alone stops both kernels
    and both workers (a terminal's Ctrl-C reaches them all; `kill -INT` does not)."""
    slow = '\n```{python}\n#| label: slow\nimport time\nfor _ in range(600):\n    time.sleep(0.1)\n```\n'
    mini.write(GOOD + slow)
    second = mini.root / "lectures" / "other"
    shutil.copytree(mini.lecture, second)
    temp = mini.root.parent / "tmp"  # the kernels' run folders go here, away from other renders'
    temp.mkdir()
    run = start_render(mini, "--jobs", "2", quiet=False, start_new_session=True,
                       env={**os.environ, "TMPDIR": str(temp)})
    seen = []

    running = []

    def both_slow():
        seen.append(run.stderr.readline())
        both = sum("cell 2/2 slow" in line for line in seen) == 2
        if both:
            running.extend(temp.glob("lecturekit-*"))
        return both
    seconds = interrupt_when(mini, run, both_slow, "two kernel stages", group=False)
    err = "".join(seen) + run.stderr.read()
    print(f"stopped {seconds:.2f} s after Ctrl-C")
    assert seconds < 1.0, (seconds, err)
    assert run.returncode == 130, err
    assert processes_under(mini.root) == []
    assert len(running) == 2, running  # each kernel had its run folder there
    assert sorted(p.name for p in temp.iterdir()) == [], "kernel run folders left after Ctrl-C"


def test_a_copied_project_renders_byte_identical_products(mini, tmp_path_factory):
    """Nothing written depends on where the project lies: a copy (cache included) in another folder
    gives the same executed notebook, slides and handout, byte for byte."""
    (mini.root / "code" / "minipkg" / "fail.py").write_text("def fail():\n    raise ValueError('না')\n")
    mini.write(GOOD + """
[উত্তর বিয়াল্লিশ]{.claim check="ANSWER == 42"}।

```{python}
#| label: raises
#| error: true
from minipkg.fail import fail
fail()
```

```{python}
#| label: here
import os
print(os.path.basename(os.getcwd()))
```
""")
    assert mini.render().returncode == 0
    copied = tmp_path_factory.mktemp("elsewhere") / "course"
    shutil.copytree(mini.root, copied, symlinks=True)
    result = subprocess.run([RENDER, "--quiet", "--force"], cwd=copied, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "cache hit" in result.stderr
    notebook = Path("_build") / "demo" / "demo.ipynb"
    text = (copied / notebook).read_text(encoding="utf-8")
    for folder in (mini.root, copied):
        assert str(folder) not in text, [line for line in text.split("\n") if str(folder) in line][:5]
    for name in (notebook, Path("_output") / "demo" / "slides.html", Path("_output") / "demo" / "handout.pdf"):
        assert (copied / name).read_bytes() == (mini.root / name).read_bytes(), name


EARLY_CLOSE = {
    # name: (body after GOOD, the line to blame (its whole text, which occurrence), what the message says)
    "exercise closed before its answer": (
        "\n::: {.exercise}\nপ্রশ্ন।\n:::\n\n::: {.answer}\nউত্তর।\n:::\n:::\n", (":::", 1), "too early"),
    "quiz closed before its explanation": (
        "\n::: {.quiz}\nকোনটি?\n\n- [ ] এক\n- [x] দুই\n:::\n::: {.explain}\nকারণ।\n:::\n:::\n", (":::", 1),
        "too early"),
    "narrow close of a wide div": (
        "\n:::: {.columns}\n::: {.column}\nবাম\n:::\n::: {.column}\nডান\n:::\n\nনিচে\n:::\n::::\n",
        (":::", 3), "too early"),
    "answer outside any exercise": ("\n::: {.answer}\nউত্তর।\n:::\n", ("::: {.answer}", 1),
                                      "belongs inside a .exercise or .discussion"),
}


@pytest.mark.parametrize("case", sorted(EARLY_CLOSE))
def test_a_div_closed_too_early_is_blamed_where_it_closed(copy, case):
    body, (needle, nth), expected = EARLY_CLOSE[case]
    copy.write(GOOD + body)
    index = copy.lecture / "index.qmd"
    lines = index.read_text(encoding="utf-8").split("\n")
    hits = [n for n, text in enumerate(lines, 1) if text == needle]
    assert_named(copy.render(), index, hits[nth - 1], expected)
