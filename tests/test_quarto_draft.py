"""Draft mode: `quarto render lectures/<lecture>/index.qmd` executes the cells in Quarto's own kernel
(once per format) and our filters do the rest, without our executor (docs/quarto.md).

The proof runs on one small lecture that uses every construct the real lectures use, not on every
real lecture: what draft mode can get wrong is how a construct reaches Quarto's execution and our
filters from there (a cell option, a div, a figure's kind, an inline value in a quiz), and the
lecture below has each of them. Another lecture using a construct this one lacks fails
`test_the_draft_lecture_uses_every_construct_of_the_lectures`, naming it: add it here. The real
lectures' own cells run in our executor, checked against tests/expected/ (test_check.py).

Compared with scripts/render's products of the same lecture: the same slide list, notes, quiz
options, steppers, callouts, figure captions and answers; the same handout headings, cover and text
(without digits: another execution); the draft beside the checked products, never over them, with
one warning line, and nothing left beside the sources.
"""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import textwrap
from pathlib import Path

import pytest

from helpers import LECTURES, NO_QUARTO, ROOT, run_render
from lecturekit.course.scaffold.projects import ProjectBuilder
from quarto_products import deck_profile, handout_profile
from test_quarto import QUARTO, letters, quarto, warnings_in

pytestmark = pytest.mark.skipif(QUARTO is None, reason=NO_QUARTO)

NAME = "03-draft"
FRONT = {"title": "খসড়া পর্ব", "subtitle": "সব ধরনের ব্লক এক জায়গায়", "title-en": "A Draft Lecture",
         "course": "বাংলায় PyTorch", "episode": 3, "episodes": 91, "module": 1, "lang": "bn"}
INDEX = "".join(f"\n{{{{< include {name} >}}}}\n" for name in ("_00-start.qmd", "_01-steps.qmd", "_02-questions.qmd"))

SECTIONS = {
    "_00-start.qmd": '''
        # শুরু {#sec-start}

        ::: {.notes}
        সময়: প্রায় ৩ মিনিট; ঘড়িতে ০:০০ থেকে ০:০৩ (পুরো পর্ব ১০ মিনিট)।
        :::

        ## ওজন গোনা {#sec-s0-count}

        ```{python}
        #| echo: false
        import courseplot
        courseplot.setup_kernel()
        ```

        ```{python}
        #| label: s00-count
        import torch
        from torch import nn
        from bazarghar import bn
        layer = nn.Linear(3, 2)
        n = sum(p.numel() for p in layer.parameters())
        print("ওজন আর bias মিলে", n)
        ```

        ::: {.content-visible when-format="revealjs"}
        - একটি স্তরে ছয়টি ওজন, দুটি bias
        - মোট `{python} bn(n)`টি সংখ্যা

        [ছোট স্তরেও গোনা আগে, চালানো পরে।]{.takeaway}
        :::

        ::: {.content-visible when-format="typst"}
        ওপরের স্তরে মোট `{python} bn(n)`টি সংখ্যা শেখে; [সংখ্যাটি out × in + out সূত্র মানে]{.claim check="n == 2 * 3 + 2"}। সূত্রে বললে $n = o \\cdot i + o$, আর পুরোটা:

        $$y = x W^\\top + b$$
        :::

        ::: {.notes}
        গুনে দেখান: `{python} bn(n)`টি। তারপর সূত্রটা বোর্ডে লিখুন।
        :::

        ## সারণি আর ছাপা কোড {#sec-s0-table}

        | স্তর | ওজন | bias |
        |---|---|---|
        | প্রথম | `{python} bn(layer.weight.numel())` | `{python} bn(layer.bias.numel())` |

        সারণির দুই ঘর মিলে `{python} bn(n)`।

        ::: {.content-visible when-format="revealjs"}
        ```{python}
        #| label: s00-slide-only
        #| echo: false
        print("শুধু স্লাইডে:", n)
        ```
        :::

        ```{python}
        #| label: s00-source
        #| class-output: python
        #| echo: false
        print("def f(x):\\n    return x + 1")
        ```

        ```text
        uv run python 01_count.py
        ```

        ::: {.notes}
        সারণির সংখ্যা cell থেকে আসে; নিচের কোড ছাপা লেখা।
        :::

        ::::: {.content-visible when-format="typst"}
        ## শুধু হ্যান্ডআউটে {#sec-s0-print}

        এই পাতা স্লাইডে নেই। সংস্করণ দেখে নিন:

        ```{python}
        #| label: s00-versions
        print("torch", torch.__version__.split("+")[0].count(".") >= 1)
        ```
        :::::
        ''',
    "_01-steps.qmd": '''
        # ধাপে ধাপে {#sec-steps}

        ::: {.notes}
        সময়: প্রায় ৪ মিনিট; ঘড়িতে ০:০৩ থেকে ০:০৭ (পুরো পর্ব ১০ মিনিট)।
        :::

        ## হাতে হিসাব {#sec-s1-stepper}

        ::: {.stepper #stp-s1-sum output-at="2"}
        ```{python}
        #| label: s01-stepper
        #| code-line-numbers: "|1-2|3|4"
        x = torch.tensor([1.0, 2.0, 3.0])
        w = torch.tensor([0.5, -1.0, 2.0])
        s = (x * w).sum()
        print(float(s))
        ```

        1. **দুই সারি।** x আর w পাশাপাশি, তিনটি করে সংখ্যা।
        2. **গুণ আর যোগ।** ঘরে ঘরে গুণ করে যোগ: `{python} bn(float(s), 1)`।
        3. **ছাপা।** ফলটি ছাপা হয়।
        :::

        ::: {.notes}
        এক এক ধাপ। যোগফল `{python} bn(float(s), 1)`।
        :::

        ## ক্ষতির ছবি {#sec-s1-plot}

        ```{python}
        #| label: fig-s01-loss
        #| fig-cap: "ধাপে ধাপে ক্ষতি কমে"
        #| fig-alt: "একটি রেখা: ক্ষতি প্রথম ধাপে বেশি, শেষ ধাপে কম।"
        #| fig-width: 9
        #| fig-height: 3.4
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots()  # fixed ticks: the same text at Quarto's figure size
        ax.plot([1, 2, 3, 4], [4.0, 2.5, 1.6, 1.2], label="ক্ষতি")
        ax.set_xlabel("ধাপ")
        ax.set_xticks([1, 2, 3, 4])
        ax.set_yticks([1, 2, 3, 4])
        ax.legend()
        plt.show()
        ```

        ::: {.content-visible when-format="typst"}
        @fig-s01-loss দেখায়, ক্ষতি প্রতি ধাপে কমে।
        :::

        ::: {.notes}
        রেখাটা বাঁ থেকে ডানে পড়ুন।
        :::

        ## স্তরের গাছ {#sec-s1-tree}

        ```{python}
        #| label: fig-s01-tree
        #| fig-cap: "দুই স্তরের model-এর গাছ"
        #| fig-alt: "Sequential-এর ভেতরে Linear, ReLU আর Linear।"
        from modtree import draw
        draw(nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1)))
        ```

        ::: {.notes}
        গাছের প্রতিটি বাক্স একটি স্তর।
        :::

        ## দুই পাশে {#sec-s1-columns}

        :::: {.columns}

        ::: {.column width="50%"}
        **ভুল**

        ```python
        layers = [nn.Linear(3, 4)]
        ```
        :::

        ::: {.column width="50%"}
        **ঠিক**

        ```{python}
        #| label: s01-right
        print(len(nn.ModuleList([nn.Linear(3, 4)])))
        ```
        :::

        ::::

        ::: {.notes}
        দুই পাশ মিলিয়ে পড়ুন।
        :::

        ## ভুলের বার্তা {#sec-s1-error}

        ```{python}
        #| label: s01-error
        #| error: true
        {"ওজন": 1}["bias"]
        ```

        ::: {.callout-warning title="অচেনা key"}
        key না থাকলে KeyError আসে; আগে দেখে নিন।
        :::

        ::: {.notes}
        error-টা ইচ্ছে করে দেখানো।
        :::

        ::::: {.content-visible when-format="revealjs"}
        ## নিয়ম {#sec-s1-rules}
        :::::

        ::: {.remember title="দুটি নিয়ম"}
        - আগে গুনুন
        - তারপর চালান
        :::

        ::: {.smaller}
        ছোট হরফে একটি লম্বা কথা: নিয়ম দুটি সবসময় মনে রাখুন।
        :::

        ::: {.notes}
        নিয়ম দুটি জোরে পড়ুন।
        :::
        ''',
    "_02-questions.qmd": '''
        # প্রশ্ন {#sec-questions}

        ::: {.notes}
        সময়: প্রায় ৩ মিনিট; ঘড়িতে ০:০৭ থেকে ০:১০ (পুরো পর্ব ১০ মিনিট)।
        :::

        ```{python}
        #| label: s02-numbers
        #| echo: false
        right, wrong, other = 8, 6, 5
        ```

        ## প্রশ্ন: কয়টি সংখ্যা {#sec-s2-quiz}

        ::: {.quiz}
        `nn.Linear(3, 2)`-এ শেখার সংখ্যা কয়টি?

        - [ ] `{python} bn(wrong)`
        - [x] `{python} bn(right)`
        - [ ] `{python} bn(other)`

        ::: {.explain}
        ছয়টি ওজন আর দুটি bias, মোট `{python} bn(right)`।
        :::
        :::

        ::: {.notes}
        আগে ভোট, তারপর উত্তর।
        :::

        ## অনুশীলনী {#sec-s2-exercise}

        ::: {.exercise title="নিজে গুনুন"}
        `nn.Linear(4, 3)`-এ কয়টি সংখ্যা শেখে? ইঙ্গিত: ওপরের স্তরে ছিল `{python} bn(n)`টি।

        ```{python}
        #| label: s02-layer
        print(nn.Linear(4, 3))
        ```

        ::: {.content-visible when-format="typst"}
        খাতায় লিখে তারপর চালান।
        :::

        ::: {.content-visible when-format="revealjs"}
        আগে খাতায়, তারপর cell।
        :::

        ::: {.answer}
        ```{python}
        #| label: s02-answer
        m = sum(p.numel() for p in nn.Linear(4, 3).parameters())
        print(m)
        ```

        মোট `{python} bn(m)`টি।

        ::: {.content-visible when-format="revealjs"}
        চার গুণ তিন, তার সঙ্গে তিন।
        :::

        ::: {.content-visible when-format="typst"}
        ওজন `{python} bn(4 * 3)`টি আর bias তিনটি।
        :::
        :::
        :::

        ::: {.notes}
        এক মিনিট সময় দিন।
        :::

        ## আলোচনা {#sec-s2-discussion}

        ::: {.discussion}
        বড় model কি সবসময় ভালো?

        ::: {.answer}
        - না: ভালো কি না, বলে একই ডেটায় মাপা validation

        ::: {.content-visible when-format="typst"}
        সংখ্যা বলে model কত ভারী, কত ভালো নয়।
        :::
        :::
        :::

        ::: {.notes}
        দুই পক্ষে তর্ক করতে দিন।
        :::

        ::::: {.content-visible when-format="typst"}
        ## আরও প্রশ্ন {#sec-s2-more}

        ::: {.exercise title="আরও একটি স্তর"}
        `nn.Linear(2, 2)`-এ কয়টি?

        ::: {.answer}
        ছয়টি: চারটি ওজন, দুটি bias।
        :::
        :::

        ::: {.discussion}
        ছোট model কখন যথেষ্ট?

        ::: {.answer}
        যখন একই ডেটায় মাপা ভুল বড় model-এর সমান।
        :::
        :::

        ::: {.smaller}
        ছোট হরফে: উত্তরগুলো পরিশিষ্টে।
        :::

        ::: {.glossary title="নতুন শব্দ"}

        ওজন
        : স্তরের শেখার সংখ্যা।

        bias
        : প্রতিটি output-এর সঙ্গে যোগ হওয়া সংখ্যা।
        :::

        ::: {.glossary terms="draft-weight draft-bias"}
        :::

        ::: {.quiz}
        কোন স্তরে bias নেই?

        - [ ] `nn.Linear(3, 2)`
        - [x] `nn.Linear(3, 2, bias=False)`
        - [ ] `nn.Linear(2, 3)`

        ::: {.explain}
        `bias=False` দিলে শুধু ওজন থাকে।
        :::
        :::

        ```toml
        [tool.uv]
        ```
        :::::
        ''',
}


# ---- the constructs a lecture uses --------------------------------------------------------------

DIV_OPEN = re.compile(r"^(:{3,})\s*\{([^}]*)\}\s*$")
DIV_CLOSE = re.compile(r"^:{3,}\s*$")
CELL_OPEN = re.compile(r"^```\{python\}")
FENCE = re.compile(r"^```(\w*)")
CLASS = re.compile(r"(?<![\w-])\.([\w-]+)")
ATTRIBUTE = re.compile(r"([\w-]+)=\"([^\"]*)\"")
SPAN = re.compile(r"\]\{\.([\w-]+)")


def _source_files(folder: Path) -> list[Path]:
    index = folder / "index.qmd"
    text = index.read_text(encoding="utf-8")
    return [index, *(folder / m for m in re.findall(r"\{\{<\s*include\s+(\S+)\s*>\}\}", text))]


def source_constructs(folder: Path) -> set[str]:
    """What a lecture's sources use, by kind: div classes (with `when-format` and the attributes
    they carry), spans, cell options (and a cell's enclosing div), headings inside a div, inline
    values by where they sit, tables, math, references, definition lists, plain code blocks."""
    found: set[str] = set()
    for path in _source_files(folder):
        stack: list[str] = []
        lines = path.read_text(encoding="utf-8").split("\n")
        index = 0
        while index < len(lines):
            line = lines[index]
            where = stack[-1] if stack else "body"
            opened, closed = DIV_OPEN.match(line), DIV_CLOSE.match(line)
            if opened:
                classes = CLASS.findall(opened[2]) or ["(none)"]
                attributes = dict(ATTRIBUTE.findall(opened[2]))
                name = classes[0]
                if "when-format" in attributes:
                    name += f"[when-format={attributes.pop('when-format')}]"
                found.add(f"div {name}")
                found.update(f"div {classes[0]} {key}=" for key in attributes)
                found.add(f"div {name} in {where}")
                stack.append(name)
            elif closed and stack:
                stack.pop()
            elif CELL_OPEN.match(line):
                found.add(f"cell in {where}")
                index += 1
                while index < len(lines) and lines[index].startswith("#|"):
                    key, _, value = lines[index][2:].partition(":")
                    key, value = key.strip(), value.strip()
                    found.add(f"cell option {key}" + (f": {value}" if key in ("echo", "error", "eval") else ""))
                    index += 1
                while index < len(lines) and not lines[index].startswith("```"):
                    index += 1
            elif FENCE.match(line):
                found.add("code block " + ("python" if FENCE.match(line)[1] == "python" else "of another language"))
                index += 1
                while index < len(lines) and not lines[index].startswith("```"):
                    index += 1
            else:
                if re.match(r"#{1,3} ", line):
                    found.add(f"heading h{len(line.split()[0])} in {where}")
                if "`{python}" in line:
                    found.add(f"inline value in {'table' if line.startswith('|') else where}")
                found.update(f"span {name}" for name in SPAN.findall(line))
                if line.startswith("|"):
                    found.add("table")
                if line.startswith(": "):
                    found.add("definition list")
                if "$$" in line:
                    found.add("display math")
                elif re.search(r"(?<!\$)\$[^$\s][^$]*\$", line):
                    found.add("inline math")
                found.update(f"reference @{kind}-" for kind in re.findall(r"@(fig|tbl|sec|eq)-", line))
                if re.match(r"\s*- \[[ x]\] ", line):
                    found.add("task list")
            index += 1
    return found


def output_constructs(notebook: Path) -> set[str]:
    """What a lecture's executed cells produced: output types and the kinds of data they carry."""
    found = set()
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        for output in cell.get("outputs", []):
            found.add(f"output {output['output_type']}" + (f" {output['name']}" if "name" in output else ""))
            found.update(f"output data {kind}" for kind in output.get("data", {}))
    return found


GLOSSARY = f"""\
draft-weight:
  term: ওজন
  en: weight
  definition: স্তরের শেখার সংখ্যা।
  lectures: [{NAME}]
draft-bias:
  term: bias
  en: bias
  definition: প্রতিটি output-এর সঙ্গে যোগ হওয়া সংখ্যা।
  lectures: [{NAME}]
"""

# ---- the two renders --------------------------------------------------------------------------------

def digests(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def construct_project(folder: Path) -> Path:
    """A project with the lecture of every construct (NAME) and a second small lecture, the course
    code (with a student script for NAME: a code zip), the scripts Quarto's pre- and post-render run
    and the project's venv; nothing rendered. test_quarto.py compares Quarto's products of it with ours."""
    builder = ProjectBuilder(folder, ROOT)
    builder.copy_code()
    builder.add_lecture(NAME, INDEX, front=FRONT,
                        sections={name: textwrap.dedent(text).lstrip("\n") for name, text in SECTIONS.items()})
    # The course glossary the lecture's `{.glossary terms=…}` draws from (lectures/glossary.yaml).
    (builder.root / "lectures" / "glossary.yaml").write_text(GLOSSARY, encoding="utf-8")
    builder.add_scripts(NAME, {"01_count.py": "import torch\nprint(sum(p.numel() for p in torch.nn.Linear(3, 2).parameters()))\n"})
    # A second lecture: a course has several, and Quarto treats a render of a project's only source
    # as a render of the whole project.
    builder.add_lecture("04-next", "# পরের পর্ব {#sec-next}\n\n## এক {#sec-next-one}\n\nএকটি বাক্য।\n",
                        front={"title": "পরের পর্ব"})
    shutil.copytree(ROOT / "scripts", builder.root / "scripts",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    for name in ("pyproject.toml", "package.json"):
        shutil.copy(ROOT / name, builder.root / name)
    (builder.root / ".venv").symlink_to(ROOT / ".venv")
    return builder.root


@pytest.fixture(scope="module")
def draft(tmp_path_factory):
    """The lecture rendered by scripts/render, then `quarto render` of its source in the same
    project: (project, Quarto's run, the checked products' digests before Quarto ran)."""
    project = construct_project(tmp_path_factory.mktemp("quarto-draft") / "project")
    ours = run_render(project, "--quiet", NAME)
    assert ours.returncode == 0, ours.stderr[-3000:]
    checked = digests(project / "_output" / NAME)
    return project, quarto(project, f"lectures/{NAME}/index.qmd"), checked


def test_the_draft_lecture_uses_every_construct_of_the_lectures(rendered, draft):
    """Every construct of every real lecture, in its sources and in its executed outputs, is in the
    draft lecture (so the draft proof below covers it)."""
    project, _run, _checked = draft
    mine = source_constructs(project / "lectures" / NAME) | output_constructs(
        project / "_build" / NAME / f"{NAME}.ipynb")
    theirs = {}
    for lecture in LECTURES:
        for construct in source_constructs(lecture.folder) | output_constructs(lecture.notebook):
            theirs.setdefault(construct, lecture.name)
    assert {"div stepper", "div quiz", "cell option fig-width", "output data text/vnd.graphviz"} <= mine
    missing = sorted(f"{construct} (in {name})" for construct, name in theirs.items() if construct not in mine)
    assert not missing, "constructs of the lectures the draft lecture does not use (add them to SECTIONS):\n" + \
        "\n".join(missing)


def test_quarto_executing_the_source_gives_the_same_lecture(browser, draft):
    """`quarto render lectures/<lecture>/index.qmd`: Quarto runs the cells in its own kernel and our
    filters do the rest, without our executor; scripts/render's products are the reference."""
    project, run, checked = draft
    log = run.stdout + run.stderr
    (ROOT / "tests" / "artifacts").mkdir(parents=True, exist_ok=True)
    (ROOT / "tests" / "artifacts" / "quarto-render-source.log").write_text(log, encoding="utf-8")
    assert run.returncode == 0, log[-4000:]
    assert "Executing 'index.quarto_ipynb'" in log  # Quarto ran the cells in its own kernel
    # Said before the kernel starts, in one line: a draft, unchecked, and where it went.
    draft_lines = [line for line in warnings_in(log) if "draft mode" in line]
    assert len(draft_lines) == 1 and f"_output/{NAME}/draft/" in draft_lines[0] and "not checked" in draft_lines[0], \
        log[-4000:]
    assert [line for line in warnings_in(log) if line not in draft_lines] == [], "\n".join(warnings_in(log))
    # Beside the checked products, never over them.
    output = project / "_output" / NAME
    assert {k: v for k, v in digests(output).items() if not k.startswith("draft/")} == checked
    ours = (deck_profile(browser, output / "slides.html"), handout_profile(output / "handout.pdf"))
    deck = deck_profile(browser, output / "draft" / "slides.html")
    handout = handout_profile(output / "draft" / "handout.pdf")
    assert deck.titles() == ours[0].titles()
    assert [s["notes"] for s in deck.slides] == [s["notes"] for s in ours[0].slides]
    assert deck.total("quiz_options") == ours[0].total("quiz_options") > 0
    for key in ("step_notes", "callouts", "figures", "answers", "divider"):
        assert [s[key] for s in deck.slides] == [s[key] for s in ours[0].slides], key
    assert deck.requests == []
    assert handout.headings == ours[1].headings
    assert "রেন্ডার:" in handout.first_page and "PyTorch" in handout.first_page
    # The same text in the same order (the PDF figures: an SVG figure's Bengali legend would come
    # out as other glyphs), compared without spaces, line breaks and digits: this is another
    # execution in Quarto's kernel, whose float32 results (and the ulp counts printed from them)
    # may end a few ulps apart from the cached one, and a changed digit moves line breaks.
    assert letters(handout.text) == letters(ours[1].text)
    assert not list((project / "lectures").rglob("*.quarto_ipynb")), "Quarto's kept notebook left behind"
    assert not list((project / "lectures").rglob("*.html"))
    assert not (project / "_output" / "lectures").exists()
