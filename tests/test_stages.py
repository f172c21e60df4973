"""Fast tests of the stages' records, no kernel: the reader parses inline expressions and claims once,
and the execution record goes into the executed notebook's metadata and comes back out equal."""
import textwrap

import nbformat
import pytest

from lecturekit.errors import LectureError
from lecturekit.execute.record import CellRun, ClaimResult, Execution, InlineValue, ProseRun, option_lines
from lecturekit.read import qmd
from lecturekit.write.notebook import executed_notebook, notebook_bytes

SOURCE = textwrap.dedent("""\
    ---
    title: "রেকর্ড"
    ---

    ## শুরু {#start}

    মোট `{python} n` টি, আর [গড় `{python} n / 2`]{.claim check="n / 2 == 2"}।

    ```{python}
    #| label: make
    #| tolerance: {rel: 0.001}
    n = 4
    print(n)
    ```

    দ্বিতীয় লাইন।
    [সব ধনাত্মক]{.claim check="n > 0"} এবং `{python} n * 3`।
""")


@pytest.fixture
def lecture(tmp_path):
    folder = tmp_path / "lectures" / "01-demo"
    folder.mkdir(parents=True)
    (folder / "index.qmd").write_text(SOURCE, encoding="utf-8")
    return qmd.read_lecture(folder / "index.qmd", tmp_path)


def line_of(needle):
    return next(i for i, line in enumerate(SOURCE.split("\n"), 1) if needle in line)


def test_the_reader_turns_inline_expressions_and_claims_into_records(lecture):
    prose = [b for b in lecture.blocks if isinstance(b, qmd.Markdown)]
    assert [i.expr for p in prose for i in p.inline] == ["n", "n / 2", "n * 3"]
    assert prose[0].inline[0] == qmd.Inline("n", line_of("মোট"))
    assert prose[1].inline[0].line == line_of("`{python} n * 3`")
    assert prose[0].claims == [qmd.Claim("গড় `{python} n / 2`", "n / 2 == 2", line_of("মোট"))]
    assert prose[1].claims == [qmd.Claim("সব ধনাত্মক", "n > 0", line_of("সব ধনাত্মক"))]


def test_a_claim_without_check_is_named_at_its_line(tmp_path):
    folder = tmp_path / "lectures" / "01-bad"
    folder.mkdir(parents=True)
    text = '---\ntitle: "x"\n---\n\nপ্রথম।\n\n[ভুল]{.claim}\n'
    (folder / "index.qmd").write_text(text, encoding="utf-8")
    with pytest.raises(LectureError) as err:
        qmd.read_lecture(folder / "index.qmd", tmp_path)
    assert err.value.line == 7 and "check=" in str(err.value)


def results_for(lecture):
    """What the kernel would have returned for SOURCE (hand-made: no kernel here)."""
    return {"cells": [{"outputs": [{"output_type": "stream", "name": "stdout", "text": "4\n"}],
                       "execution_count": 1, "seconds": 0.25, "raised": False}],
            "inline": [["4", "2.0"], ["12"]],
            "claims": [[{"sentence": "old", "expr": "n / 2 == 2", "file": "x", "line": 1, "ok": True,
                         "error": None}],
                       [{"sentence": "old", "expr": "n > 0", "file": "x", "line": 1, "ok": False,
                         "error": None}]],
            "versions": {"python": "3.11.2", "torch": "2.13.0+cpu"}, "key": "abc", "executed_at": 1700000000}


def test_the_execution_record_round_trips_through_the_notebook(lecture, tmp_path):
    nb = executed_notebook(lecture, results_for(lecture), tmp_path)
    # Through the bytes on disk, as the check reads a written notebook.
    record = Execution.from_notebook(nbformat.reads(notebook_bytes(nb).decode(), as_version=4))
    assert record.name == "01-demo"
    assert record.environment.versions == {"python": "3.11.2", "torch": "2.13.0+cpu"}
    assert (record.environment.key, record.environment.executed_at) == ("abc", 1700000000)
    assert [type(r) for r in record.runs] == [ProseRun, CellRun, ProseRun]
    [cell] = record.cells
    # The option lines are the notebook's, not the code's: the code is what was read.
    assert cell.code == lecture.cells[0].code == "n = 4\nprint(n)"
    assert cell.options == {"label": "make", "tolerance": {"rel": 0.001}}
    assert (cell.label, cell.where, cell.seconds, cell.raised) == (
        "make", f"lectures/01-demo/index.qmd:{line_of('```{python}')}", 0.25, False)
    assert [dict(o) for o in cell.outputs] == [{"output_type": "stream", "name": "stdout", "text": "4\n"}]
    inline = [i for p in record.prose for i in p.inline]
    assert inline == [InlineValue("n", "4"), InlineValue("n / 2", "2.0"), InlineValue("n * 3", "12")]
    # Today's sentence and line, not the cached ones: the prose may have changed since the run.
    assert record.claims[1] == ClaimResult("সব ধনাত্মক", "n > 0", "lectures/01-demo/index.qmd",
                                           line_of("সব ধনাত্মক"), False, None)
    # Written again, the record gives the same metadata it was read from.
    for nb_cell, run in zip(nb.cells[1:], record.runs):
        assert nb_cell.metadata["lecture"] == run.metadata()
    assert nb.metadata["lecture"] == record.metadata()


def test_option_lines_are_the_cell_options_without_file():
    assert option_lines({}) == ""
    assert option_lines({"label": "a", "file": "x.py", "echo": False}) == "#| label: a\n#| echo: false\n"


def test_hidden_cells_are_not_checked():
    run = CellRun("f.qmd", 1, "a", "", {"output": False}, "x = 1\n")
    assert run.hidden and not CellRun("f.qmd", 1, "a", "", {}, "x = 1\n").hidden
