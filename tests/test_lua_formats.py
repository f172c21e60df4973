"""The Lua filters render per format: each block's renderers are a table keyed by format, chosen once
when the filter loads, and a further format brings its renderers in `_extensions/lecture/formats/<name>.lua`.

- A further format (a plain HTML 4 page) is one record in write/formats.py and one Lua file of renderers:
  the whole pipeline (kernel, emitter, pandoc with the lecture filters) writes its product with them.
- Fast, pandoc only: what each of our two formats makes of the same blocks; the quiz's key reaches the
  handout's appendix through the document (no state shared between filters); a filter's error names
  the block's id and the line where it is written.
"""
import subprocess
import textwrap

import pypandoc
import pytest

from lecturekit.course.build import builder as course
from lecturekit.project import Project
from lecturekit.write.formats import FORMATS, Format

from helpers import ROOT, add_format_schema

FILTER = ROOT / "_extensions" / "lecture" / "lecture.lua"

# Blocks as the emitter writes them: a part, a callout, a box, notes, a pause, a quiz, an exercise
# and a stepper with its output.
BLOCKS = textwrap.dedent("""\
    ---
    title: ক
    episode: 1
    ---

    # প্রথম {#sec-one}

    ::: {.callout-tip}
    একটি টিপ।
    :::

    ::: {.remember}
    মনে রাখার কথা।
    :::

    ::: {.notes}
    শিক্ষকের নোট।
    :::

    . . .

    ::: {.quiz #q-one}
    কোনটি ঠিক?

    - [ ] এক
    - [x] দুই

    ::: {.explain}
    কারণ দুই।
    :::
    :::

    ::: {.exercise #ex-one title="যোগ"}
    ২ + ২ কত?

    ::: {.answer}
    চার।
    :::
    :::

    ::: {.stepper #stp-one}
    ``` {.python code-line-numbers="|1|2"}
    a = 1
    print(a)
    ```

    ::: {.cell-output .cell-output-stdout}
    ```
    1
    ```
    :::

    1. **ধরা।** a-তে এক।
    2. **ছাপা।** এক ছাপে।
    :::
    """)

# The further format's renderers: one per block it draws its own way (the rest take the neutral default).
HTML_RENDERERS = textwrap.dedent("""\
    local C = require("common")
    local function raw(text) return pandoc.RawBlock("html", text) end
    return {
      callout = function(div, kind, title)
        return pandoc.Div({ raw('<p class="page-callout-title">' .. C.inlines_to(title, "html") .. "</p>"),
          table.unpack(div.content) }, pandoc.Attr("", { "page-callout", "page-" .. kind }))
      end,
      quiz = function(q)
        local out = { raw('<section class="page-quiz" id="' .. q.identifier .. '">') }
        for _, b in ipairs(q.question) do table.insert(out, b) end
        table.insert(out, raw("<details><summary>" .. C.letters[q.right] .. "</summary>"))
        for _, b in ipairs(q.explain) do table.insert(out, b) end
        table.insert(out, raw("</details></section>"))
        return out
      end,
      part_number = function(header, label)
        header.content:insert(1, pandoc.Span({ pandoc.Str(label) }, pandoc.Attr("", { "page-part" })))
        return header
      end,
      stepper = function(div, s)
        div.classes:insert("page-stepper")
        div.attributes["data-steps"] = tostring(#s.steps)
        return div
      end,
    }
    """)


def pandoc(source: str, to: str, cwd, filter_path=FILTER) -> subprocess.CompletedProcess:
    (cwd / "in.md").write_text(source, encoding="utf-8")
    return subprocess.run([pypandoc.get_pandoc_path(), "in.md", "--from=markdown", f"--to={to}",
                           f"--lua-filter={filter_path}"], cwd=cwd, capture_output=True, text=True, timeout=120)


# ---- a further format: one record, one file of renderers -------------------------------------------

def test_a_further_format_is_one_record_and_one_file_of_renderers(project_builder, monkeypatch):
    page = Format(name="html4", product="page.html", options={}, figure_mimes=("image/svg+xml", "image/png"),
                  link_label="পাতা", fixed_args=("--standalone",))
    monkeypatch.setitem(FORMATS, "html4", page)
    add_format_schema(monkeypatch, project_builder.root, "html4")
    (project_builder.root / "_extensions" / "lecture" / "formats" / "html4.lua").write_text(HTML_RENDERERS,
                                                                                          encoding="utf-8")
    body = BLOCKS.split("---\n", 2)[2].replace(
        '``` {.python code-line-numbers="|1|2"}\na = 1\nprint(a)\n```\n\n::: {.cell-output .cell-output-stdout}\n```\n1\n```\n:::\n',
        '```{python}\n#| label: step\n#| code-line-numbers: "|1|2"\na = 1\nprint(a)\n```\n')
    assert "#| label: step" in body
    folder = project_builder.add_lecture("01-a", body, front={"title": "ক", "episode": 1})
    _plans, results = course.build_course(Project(project_builder.root), [folder], ["html4"], jobs=1, force=True)
    assert [r.error for r in results] == [None] and results[0].written == ["html4"], results
    html = (project_builder.root / "_output" / "01-a" / "page.html").read_text(encoding="utf-8")
    # Its own renderers: the callout, the quiz, the part number, the stepper.
    assert 'class="page-callout page-tip"' in html and 'class="page-callout-title">টিপ</p>' in html
    assert '<section class="page-quiz" id="q-one">' in html and "<summary>খ</summary>" in html
    assert '<span class="page-part">অংশ ০</span>' in html
    assert 'class="stepper page-stepper"' in html and 'data-steps="2"' in html
    # The neutral defaults for the rest: the box titled, the exercise's answer in the appendix,
    # notes and pauses dropped, and nothing of the other formats' forms.
    assert "মনে রাখুন" in html and "উত্তর: পরিশিষ্টে, অনুশীলনী ১" in html and 'id="sec-answers"' in html
    assert "শিক্ষকের নোট" not in html and ". . ." not in html
    assert "#callout(" not in html and "quiz-option" not in html and "fragment" not in html


# ---- our two formats, pandoc only ----------------------------------------------------------------

def test_each_format_renders_the_same_blocks_its_own_way(tmp_path):
    slides = pandoc(BLOCKS, "revealjs", tmp_path)
    assert slides.returncode == 0, slides.stderr
    deck = slides.stdout
    assert 'class="callout callout-tip"' in deck and "quiz-option" in deck and "stepper-slide" in deck
    assert 'class="part-number">অংশ ০</span>' in deck and "শিক্ষকের নোট" in deck
    assert "পরিশিষ্টে" not in deck and "sec-answers" not in deck
    handout = pandoc(BLOCKS, "typst", tmp_path)
    assert handout.returncode == 0, handout.stderr
    typ = handout.stdout
    assert '#callout(kind: "tip"' in typ and '#callout(kind: "remember"' in typ and "#answers-start()" in typ
    assert "অংশ ০ ·" in typ and "(লাইন ১)" in typ and "শিক্ষকের নোট" not in typ
    assert "quiz-option" not in typ and "stepper-slide" not in typ


def test_the_quiz_key_reaches_the_appendix_through_the_document(tmp_path):
    typ = pandoc(BLOCKS, "typst", tmp_path).stdout
    appendix = typ[typ.index("#answers-start()"):]
    # After the exercise's answer, the quiz's key: its letter, the right option and the explanation;
    # and no trace of the marked div it travelled in.
    assert appendix.index("চার।") < appendix.index("প্রশ্ন ১: খ)") < appendix.index("কারণ দুই।")
    assert "কারণ দুই।" not in typ[:typ.index("#answers-start()")]
    assert "quiz-key" not in typ


@pytest.mark.parametrize("to", ["revealjs", "typst"])
def test_a_filter_error_names_the_block_and_its_line(tmp_path, to):
    broken = BLOCKS.replace("- [x] দুই", "- [ ] দুই")
    run = pandoc(broken, to, tmp_path)
    assert run.returncode != 0
    line = broken.split("\n").index("::: {.quiz #q-one}") + 1
    assert "lecture filter: প্রশ্ন ১ marks no option right" in run.stderr, run.stderr
    assert f"#q-one at in.md:{line}" in run.stderr, run.stderr


def test_a_filter_refusal_is_blamed_on_the_lecture_line_that_names_the_block(project_builder):
    """Through scripts/render's path: the refusal names the author's file and line, not the markdown
    the emitter wrote into _build."""
    body = "## ক {#sec-a}\n\nপ্রথম।\n\n::: {.quiz #q-none}\nকোনটি?\n\n- [ ] এক\n- [ ] দুই\n:::\n"
    folder = project_builder.add_lecture("01-a", body, front={"title": "ক"})
    _plans, results = course.build_course(Project(project_builder.root), [folder], ["revealjs"], jobs=1, force=True)
    err = results[0].error
    assert err is not None
    index = folder / "index.qmd"
    line = index.read_text(encoding="utf-8").split("\n").index("::: {.quiz #q-none}") + 1
    assert f"index.qmd:{line}: lecture filter (revealjs): প্রশ্ন ১ marks no option right" in str(err), str(err)
    assert "_build" not in str(err)


@pytest.mark.parametrize("to", ["revealjs", "html", "typst"])
def test_an_output_without_a_caption_is_described_by_its_fig_alt(tmp_path, to):
    """A cell's picture shown without `fig-cap` is an image, not a figure: screen readers still get
    its `fig-alt` as the image's alt text (not a data- attribute they never read); in the handout,
    Typst's `alt` (the PDF's /Alt), which pandoc's Typst writer leaves out. An image in a line of
    text keeps its own text and its size."""
    source = ("---\ntitle: ক\nepisode: 1\n---\n\n# এক {#sec-one}\n\n![](pic.svg){fig-alt=\"গাছের বর্ণনা\"}\n\n"
              "লেখার ভেতরে ![ছোট \"চিহ্ন\"](dot.svg){width=30%} একটি ছবি।\n")
    out = pandoc(source, to, tmp_path)
    assert out.returncode == 0, out.stderr
    if to == "typst":
        assert '#box(image("pic.svg", alt: "গাছের বর্ণনা"))' in out.stdout, out.stdout
        assert '#box(image("dot.svg", alt: "ছোট “চিহ্ন”", width: 30%))' in out.stdout, out.stdout
    else:
        assert 'alt="গাছের বর্ণনা"' in out.stdout and "data-fig-alt" not in out.stdout, out.stdout
