"""Fast tests of the stages' records, no kernel: the reader parses inline expressions and claims once,
and the execution record goes into the executed notebook's metadata and comes back out equal."""
import json
import textwrap

import nbformat
import pytest

from lecturekit.errors import LectureError
from lecturekit.execute.record import (CellRun, ClaimResult, Environment, Execution, InlineValue, ProseRun,
                                       RecordShapeError, option_lines)
from lecturekit.read import qmd
from lecturekit.execute.notebook import executed_notebook, notebook_bytes

SOURCE = textwrap.dedent("""\
    ---
    title: "রেকর্ড"
    ---

    ## শুরু {#start}

    মোট `{python} n` টি, আর [গড় `{python} n / 2`]{.claim check="n / 2 == 2"}।

    ```{python}
    #| label: make
    #| tolerance: {rel: 0.001, why: "measured"}
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


KEY = "ab" * 32  # an execution key's shape: 64 hex digits


def results_for(lecture):
    """The record the kernel would have returned for SOURCE (hand-made: no kernel here)."""
    return Execution("01-demo", Environment({"python": "3.11.2", "torch": "2.13.0+cpu"}, KEY, 1700000000), [
        ProseRun("x", 1, [InlineValue("n", "4"), InlineValue("n / 2", "2.0")],
                 [ClaimResult("old", "n / 2 == 2", "x", 1, True, None)]),
        CellRun("x", 1, "make", "", {}, "old code", [{"output_type": "stream", "name": "stdout", "text": "4\n"}],
                1, 0.25, False),
        ProseRun("x", 1, [InlineValue("n * 3", "12")], [ClaimResult("old", "n > 0", "x", 1, False, None)]),
    ])


def test_the_execution_record_round_trips_through_json():
    """What the cache stores is the record, whole: read back it is equal; data of another shape is
    refused with what is wrong."""
    record = results_for(None)
    assert Execution.from_json(json.loads(json.dumps(record.to_json()))) == record
    data = record.to_json()
    broken = {**data, "runs": [{**data["runs"][1], "outputs": {"x": 1}}]}
    # Refused by the record's schema (schemas/execution.yaml), at the place that is wrong.
    with pytest.raises(RecordShapeError, match="not an execution record: at runs/0"):
        Execution.from_json(broken)
    with pytest.raises(RecordShapeError, match="not an execution record"):
        Execution.from_json([])


def test_the_execution_record_round_trips_through_the_notebook(lecture, tmp_path):
    nb = executed_notebook(lecture, results_for(lecture), tmp_path)
    # Through the bytes on disk, as the check reads a written notebook.
    record = Execution.from_notebook(nbformat.reads(notebook_bytes(nb).decode(), as_version=4))
    assert record.name == "01-demo"
    assert record.environment.versions == {"python": "3.11.2", "torch": "2.13.0+cpu"}
    assert (record.environment.key, record.environment.executed_at) == (KEY, 1700000000)
    assert [type(r) for r in record.runs] == [ProseRun, CellRun, ProseRun]
    [cell] = record.cells
    # The option lines are the notebook's, not the code's: the code is what was read.
    assert cell.code == lecture.cells[0].code == "n = 4\nprint(n)"
    assert cell.options == {"label": "make", "tolerance": {"rel": 0.001, "why": "measured"}}
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


# Registries: block types, normalisers, the kit's Bengali words.

from pathlib import Path  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402

import pypandoc  # noqa: E402

from lecturekit import words  # noqa: E402
from lecturekit.check.normalise import NORMALISERS, normalise  # noqa: E402
from lecturekit.read.blocktypes import BLOCK_TYPES, DIV_CLASSES, REQUIRED_PARENT  # noqa: E402

FILTERS = Path(__file__).resolve().parents[1] / "_extensions" / "lecture" / "filters"


def read_text(tmp_path, body):
    folder = tmp_path / "lectures" / "01-x"
    folder.mkdir(parents=True)
    (folder / "index.qmd").write_text('---\ntitle: "x"\n---\n\n' + body, encoding="utf-8")
    return qmd.read_lecture(folder / "index.qmd", tmp_path)


def test_every_registered_block_type_reads_and_no_other(tmp_path):
    assert {"quiz", "explain", "exercise", "answer", "stepper", "callout-note", "claim"} <= DIV_CLASSES
    assert REQUIRED_PARENT["answer"] == ("exercise", "discussion")
    free = [t.name for t in BLOCK_TYPES.values() if not t.inside and t.name != "claim"]
    body = "".join(f"::: {{.{name}}}\nলেখা\n:::\n\n" for name in free)
    assert read_text(tmp_path / "ok", body).blocks
    with pytest.raises(LectureError, match="quizz"):
        read_text(tmp_path / "bad", "::: {.quizz}\nলেখা\n:::\n")


def test_a_block_type_that_needs_a_parent_is_refused_outside_it(tmp_path):
    with pytest.raises(LectureError, match=r"\.answer belongs inside a \.exercise or \.discussion"):
        read_text(tmp_path, "::: {.answer}\nলেখা\n:::\n")
    assert read_text(tmp_path / "ok", "::: {.exercise}\nপ্রশ্ন\n\n::: {.answer}\nউত্তর\n:::\n:::\n").blocks


@pytest.mark.parametrize("name, text, expected", [
    ("strip-colour", "\x1b[31mলাল\x1b[0m", "লাল"),
    ("hide-addresses", "<Net object at 0x7f3a2c1b4d90> 0xff", "<Net object at 0x…> 0xff"),
    ("hide-folders", "/x/.venv/lib/python3.11/site-packages/torch/nn.py", "<site-packages>/torch/nn.py"),
    ("hide-temporary-paths", "/tmp/tmpab12cd_x/model.pt", "<tmp>/model.pt"),
    ("drop-trailing-spaces", "a  \nb\t", "a\nb"),
])
def test_each_normaliser_by_name(name, text, expected):
    assert NORMALISERS[name](text) == expected
    assert normalise(text) == expected  # and the others leave its text alone


def test_the_normalisers_apply_in_their_registered_order():
    assert list(NORMALISERS) == ["strip-colour", "hide-addresses", "hide-folders", "hide-temporary-paths",
                                 "drop-trailing-spaces"]
    assert normalise("/work/p/a.pt  ", "/work/p") == "<project>/a.pt"


def test_python_and_lua_read_one_words_file(tmp_path):
    """words.json is the only spelling: the kit's WORDS are its words, and a word changed in the file
    changes what the filters write (a part's label) without a line of Lua."""
    assert words.WORDS_FILE == FILTERS.parent / "words.json"
    data = json.loads(words.WORDS_FILE.read_text(encoding="utf-8"))
    assert words.MONTHS == tuple(data["months"]) and words.WORDS["figure"] == data["figure"]
    shutil.copytree(FILTERS.parent, tmp_path / "lecture")
    data["part"], data["digits"] = "খণ্ড", "0123456789"
    (tmp_path / "lecture" / "words.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "in.md").write_text("# ক {#sec-a}\n\n# খ {#sec-b}\n", encoding="utf-8")
    run = subprocess.run([pypandoc.get_pandoc_path(), "in.md", "--to=typst",
                          f"--lua-filter={tmp_path / 'lecture' / 'lecture.lua'}"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "খণ্ড 0 ·" in run.stdout and "খণ্ড 1 ·" in run.stdout and "অংশ" not in run.stdout


def test_no_filter_spells_a_bengali_word():
    for path in FILTERS.glob("*.lua"):
        code = [line for line in path.read_text(encoding="utf-8").split("\n") if not line.strip().startswith("--")]
        assert not [line for line in code if re.search("[\u0980-\u09ff]", line)], path.name


def test_bengali_date_and_digits():
    assert words.bengali_date(0) == "১ জানুয়ারি ১৯৭০"
    assert words.bn_digits("পর্ব 09") == "পর্ব ০৯"
    assert "৪২".translate(words.FROM_BENGALI_DIGITS) == "42"


# ---- pandoc, run the one way every stage runs it (lecturekit/pandoc.py) -------------------------

import time  # noqa: E402

from lecturekit.pandoc import PandocError, pandoc_binary, run_pandoc  # noqa: E402
from lecturekit.write.writers import Children  # noqa: E402


def test_pandoc_runs_the_pinned_binary_with_text_in_and_out():
    assert Path(pandoc_binary()).parent.parent == Path(pypandoc.__file__).parent  # pypandoc-binary's files/
    run = run_pandoc(["--from=markdown", "--to=plain"], stdin="*এক* দুই")
    assert run.stdout.strip() == "এক দুই"


def test_a_failed_pandoc_run_is_the_kits_error_with_pandocs_words():
    with pytest.raises(PandocError) as err:
        run_pandoc(["--from=nosuchreader"], stdin="x")
    assert isinstance(err.value, LectureError) and err.value.returncode not in (0, None)
    assert "nosuchreader" in err.value.stderr and "nosuchreader" in str(err.value)


@pytest.mark.parametrize("start", ["subprocess", "the write stage's children"])
def test_a_pandoc_run_past_its_time_limit_is_stopped_and_named(tmp_path, start):
    (tmp_path / "loop.lua").write_text("while true do end\n")
    kwargs = {"start": Children().run} if start != "subprocess" else {}
    started = time.monotonic()
    with pytest.raises(PandocError) as err:
        run_pandoc(["--lua-filter=loop.lua"], stdin="x", cwd=tmp_path, timeout=1, **kwargs)
    assert time.monotonic() - started < 4  # stopped at its limit, not left to run
    assert err.value.returncode is None and "did not finish in 1 s" in err.value.message
