"""Damaged state heals itself: a cache entry or products manifest that does not parse, or has the
wrong shape, is discarded with one warning and built again; the render succeeds."""
import json

import pytest



def cache_entry(mini):
    entries = list((mini.root / "_build" / "cache" / "demo").glob("*.json"))
    assert len(entries) == 1, entries
    return entries[0]


def record(data):
    return json.loads(data)["record"]


def signed(rec):
    """An entry holding `rec` with its digest: the damage is then only the record's shape."""
    from lecturekit.execute.cache import _digest
    return json.dumps({"sha256": _digest(rec), "record": rec}).encode()


def without_run(kind):
    def damage(data):
        rec = record(data)
        index = next(i for i, run in enumerate(rec["runs"]) if run["kind"] == kind)
        return signed({**rec, "runs": rec["runs"][:index] + rec["runs"][index + 1:]})
    return damage


def without_inline_value(data):
    rec = record(data)
    prose = next(run for run in rec["runs"] if run["kind"] == "prose" and run["inline"])
    prose["inline"].pop()
    return signed(rec)


def other_code(data):
    rec = record(data)
    next(run for run in rec["runs"] if run["kind"] == "cell")["code"] = "print('not this cell')"
    return signed(rec)


def with_cell_outputs(rec, outputs):
    next(run for run in rec["runs"] if run["kind"] == "cell")["outputs"] = outputs
    return rec


CACHE_DAMAGE = {
    "bad byte": lambda data: data[:40] + b"\xff" + data[41:],
    "truncated": lambda data: data[: len(data) // 2],
    "a list": lambda data: b"[]",
    "no digest (an older entry)": lambda data: json.dumps(record(data)).encode(),
    "an output edited": lambda data: data.replace("উত্তর".encode(), "ভুল".encode()),
    "runs not a list": lambda data: signed({**record(data), "runs": {"x": 1}}),
    "a cell without outputs": lambda data: signed({**record(data), "runs": [{"kind": "cell", "seconds": 1}]}),
    "claims of the wrong shape": lambda data: signed(
        {**record(data), "runs": [{"kind": "prose", "inline": [], "claims": [1]}]}),
    "no environment": lambda data: signed({**record(data), "environment": None}),
    # The key covers the code, so only a damaged entry has these; assembled, they lost outputs.
    "a cell missing": without_run("cell"),
    "a prose run missing": without_run("prose"),
    "an inline value missing": without_inline_value,
    "another cell's code": other_code,
    # Shapes the digest cannot catch (it is no key, anyone can compute it): the schema does.
    "executed_at not a whole number": lambda data: signed(
        {**record(data), "environment": {**record(data)["environment"], "executed_at": "yesterday"}}),
    "an empty output": lambda data: signed(with_cell_outputs(record(data), [{}])),
    "an output of no known type": lambda data: signed(
        with_cell_outputs(record(data), [{"output_type": "stream", "name": "stdout", "text": 3}])),
}


@pytest.mark.parametrize("damage", sorted(CACHE_DAMAGE))
def test_a_damaged_cache_entry_is_discarded(rendered_mini, tmp_path, damage, capsys):  # noqa: F811
    """Each damage, on the cache alone (no kernel): the entry is not used, one warning names it and
    it is removed, so the next render executes the lecture again."""
    import shutil
    from lecturekit.execute.cache import ExecutionCache
    from lecturekit.read.qmd import read_lecture
    folder = tmp_path / "cache"
    shutil.copytree(rendered_mini.root / "_build" / "cache", folder)
    entry = next((folder / "demo").glob("*.json"))
    key = record(entry.read_bytes())["environment"]["key"]
    lecture = read_lecture(rendered_mini.lecture / "index.qmd", rendered_mini.root)
    assert ExecutionCache(folder).load("demo", key, lecture) is not None  # as written, it is used
    capsys.readouterr()
    entry.write_bytes(CACHE_DAMAGE[damage](entry.read_bytes()))
    assert ExecutionCache(folder).load("demo", key, lecture) is None
    warnings = capsys.readouterr().err.splitlines()
    assert len(warnings) == 1 and entry.name in warnings[0] and "discarded a damaged cache entry" in warnings[0], warnings
    assert not entry.exists()


@pytest.mark.parametrize("damage", ["bad byte", "a cell missing", "an empty output"])
def test_a_damaged_cache_entry_is_rebuilt_by_the_render(copy, damage):  # noqa: F811
    entry = cache_entry(copy)
    entry.write_bytes(CACHE_DAMAGE[damage](entry.read_bytes()))
    result = copy.render()
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    warnings = [line for line in result.stderr.splitlines() if "discarded a damaged cache entry" in line]
    assert len(warnings) == 1 and entry.name in warnings[0], result.stderr
    assert "(executed)" in result.stderr
    json.loads(cache_entry(copy).read_text(encoding="utf-8"))
    again = copy.render("--force")  # read and keyed again, not skipped on its stamp
    assert "cache hit" in again.stderr and "discarded" not in again.stderr, again.stderr


MANIFEST_DAMAGE = {
    "bad byte": b'{"revealjs": \xff}',
    "a list": b"[1, 2]",
    "entries of the wrong shape": b'{"revealjs": "x", "typst": {"inputs": 3}}',
    "a product outside its folder": b'{"revealjs": {"inputs": "' + b"0" * 64 + b'", "product": "../../x", "stat": [1, 2]}}',
}


@pytest.mark.parametrize("damage", sorted(MANIFEST_DAMAGE))
def test_a_damaged_products_manifest_is_discarded_and_rebuilt(copy, damage):  # noqa: F811
    manifest = copy.root / "_build" / "demo" / "products.json"
    manifest.write_bytes(MANIFEST_DAMAGE[damage])
    result = copy.render()
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    warnings = [line for line in result.stderr.splitlines() if "discarded" in line]
    assert len(warnings) == 1 and "products.json" in warnings[0], result.stderr
    assert set(json.loads(manifest.read_text(encoding="utf-8"))) == {"html", "revealjs", "typst"}
    assert "up to date" in copy.render().stderr


# Damages of both files' shape (a products.json entry outside its schema is a valid pending list).
@pytest.mark.parametrize("damage", sorted(set(MANIFEST_DAMAGE) - {"a product outside its folder"}))
def test_damaged_quarto_state_is_discarded_with_one_warning(copy, damage, capsys):  # noqa: F811
    """The products manifest as `quarto render` reads it (`_build/<lecture>/products.json`, which
    pre-render reads) and `_build/quarto-pending.json` (which post-render reads): damaged, they are
    discarded with one warning and the lecture counts as changed, never a traceback."""
    from lecturekit.course.build import products
    from lecturekit.course.quarto import handoff, post_render, pre_render
    from lecturekit.project import Project
    project = Project(copy.root)
    manifest = copy.root / "_build" / "demo" / products.MANIFEST
    pending = copy.root / "_build" / handoff.PENDING
    manifest.write_bytes(MANIFEST_DAMAGE[damage])
    pending.write_bytes(MANIFEST_DAMAGE[damage])
    stale, current = pre_render.stale_lectures(project)
    assert list(stale) == ["demo"] and current == []
    post_render.record(project, [(copy.slides, "_build")])
    warnings = capsys.readouterr().err.splitlines()
    # Discarded once: the damaged file goes, so the second read finds none.
    assert len([w for w in warnings if "products.json: discarded a damaged" in w]) == 1, warnings
    assert len([w for w in warnings if "quarto-pending.json: damaged" in w]) == 1, warnings
    assert json.loads(manifest.read_text(encoding="utf-8")) == {}  # the slides' digest was not pending


# ---- the expectations file: one lecture's error, read before its cells run ------------------------

@pytest.fixture(scope="module")
def checked_course(tmp_path_factory):
    """Two lectures rendered, their outputs accepted into tests/expected/, rendered again."""
    from helpers import FRONT, MiniProject, run_check
    from test_pipeline import GOOD
    mini = MiniProject(tmp_path_factory.mktemp("checked"))
    mini.write(GOOD)
    mini.add_lecture("other", GOOD, front=FRONT)
    assert mini.render().returncode == 0
    accepted = run_check(mini.root, "--accept")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert mini.render().returncode == 0
    return mini


@pytest.fixture
def course(checked_course, tmp_path):
    import shutil
    from helpers import MiniProject
    root = tmp_path / "project"
    shutil.copytree(checked_course.root, root, symlinks=True)
    mini = MiniProject.__new__(MiniProject)
    mini.root, mini.lecture = root, root / "lectures" / "demo"
    return mini


def expected(mini, name="demo"):
    return mini.root / "tests" / "expected" / f"{name}.yaml"


def _flow(text):
    import yaml
    return yaml.safe_dump(yaml.safe_load(text), default_flow_style=True, allow_unicode=True, width=80)


def _anchored(text):
    # The first entry's versions anchored, the second cell's (the other lecture has one) aliased.
    return text.replace("  versions: {", "  versions: &v {", 1) + "extra:\n  versions: *v\n  outputs: []\n"


EXPECTATION_DAMAGE = {
    # damage: (new text from the old, the text on the line to blame (None: line 1), what the message says)
    "flow style": (_flow, None, "flow mapping"),
    "an anchor": (_anchored, "&v", "anchors and aliases"),
    "not UTF-8": (lambda text: text.replace("উত্তর", "উত্তর\udcff", 1), "\ufffd", "not UTF-8"),
    "outputs not a list": (lambda text: text + "extra:\n  outputs: nothing\n", "outputs: nothing", "expectation"),
    "an output that is a number": (lambda text: text.replace("  - stdout: ", "  - stdout: 42\n    x: ", 1),
                                   "stdout: 42", "expectation"),
    "an entry that is text": (lambda text: text + "stray: just text\n", "stray:", "expectation"),
    "malformed YAML": (lambda text: text + "broken: [1, 2\n", "broken:", "malformed YAML"),
    "a bom in the middle": (lambda text: text.replace("_files:", "\ufeff_files:", 1), "_files:", "byte-order mark"),
}


@pytest.mark.parametrize("damage", sorted(EXPECTATION_DAMAGE))
def test_a_damaged_expectations_file_is_that_lectures_error(course, damage):
    change, needle, words = EXPECTATION_DAMAGE[damage]
    path = expected(course)
    text = change(path.read_text(encoding="utf-8"))
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    shown = path.read_bytes().decode("utf-8", "replace").split("\n")
    line = 1 if needle is None else next(n for n, l in enumerate(shown, 1) if needle in l)
    before = path.read_bytes()
    result = course.render()
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    errors = [l for l in result.stderr.splitlines() if "tests/expected/demo.yaml" in l]
    assert errors and f"demo.yaml:{line}:" in errors[0] and words in errors[0], result.stderr
    assert "[demo] FAILED" in result.stderr and "[other] FAILED" not in result.stderr, result.stderr
    assert "2 lecture(s)" in result.stderr and "1 failed" in result.stderr, result.stderr
    assert path.read_bytes() == before  # never rewritten without --accept


def test_a_byte_order_mark_before_the_expectations_is_read_as_they_are(course):
    path = expected(course)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    result = course.render()
    assert result.returncode == 0, result.stderr


SELF_WRITING = {
    # what the cell does to its own expectation, besides printing something new
    "rewrites it": "p.write_text(p.read_text(encoding='utf-8').replace('উত্তর 42', 'উত্তর 43'), encoding='utf-8')",
    "deletes it": "p.unlink()",
    "empties it": "p.write_text('', encoding='utf-8')",
}


@pytest.mark.parametrize("how", sorted(SELF_WRITING))
def test_a_cell_that_writes_its_own_expectation_does_not_pass(course, how):
    """The file is read before the cells run and compared in memory; a cell that wrote it is named,
    the file is put back, and a second render (from the cache) still compares with the original."""
    from test_pipeline import GOOD
    path = expected(course)
    before = path.read_bytes()
    cheat = (f"import pathlib\np = pathlib.Path({str(path)!r})\n{SELF_WRITING[how]}\n"
             "print('উত্তর', ANSWER + 1)")
    course.write(GOOD.replace('print("উত্তর", ANSWER)', cheat))
    first = course.render()
    assert first.returncode == 1, first.stderr
    assert "a cell of the lecture wrote to tests/expected/demo.yaml" in first.stderr, first.stderr
    assert path.read_bytes() == before
    second = course.render()  # from the cache: the changed output still differs from the expectation
    assert second.returncode == 1, second.stderr
    assert "outputs changed" in second.stderr and "উত্তর 43" in second.stderr, second.stderr
    assert path.read_bytes() == before


def test_scripts_check_reads_the_expectations_before_the_cells_run(course):
    from helpers import run_check
    from test_pipeline import GOOD
    path = expected(course)
    before = path.read_bytes()
    course.write(GOOD.replace('print("উত্তর", ANSWER)',
                              f"import pathlib\np = pathlib.Path({str(path)!r})\n{SELF_WRITING['rewrites it']}\n"
                              "print('উত্তর', ANSWER + 1)"))
    result = run_check(course.root, "demo")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "wrote to this file while it ran" in result.stderr, result.stderr
    assert path.read_bytes() == before
    again = run_check(course.root, "demo")
    assert again.returncode == 1 and "উত্তর 43" in again.stdout, again.stdout + again.stderr


# ---- a product comes only from a verified cache entry ----------------------------------------------

FIGURE = """
```{python}
#| label: picture
from IPython.display import SVG, display
display(SVG('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><circle r="20" cx="20" cy="20" fill="#2a9d8f"/></svg>'))
```
"""


def test_a_figure_replaced_in_the_cache_never_reaches_the_products(copy):  # noqa: F811
    """The check compares a figure by its data, not its picture: a cache entry whose SVG was replaced
    would pass as expected. The entry's digest covers every output it hands on."""
    from test_pipeline import GOOD
    copy.write(GOOD + FIGURE)
    assert copy.render().returncode == 0
    entry = next(e for e in (copy.root / "_build" / "cache" / "demo").glob("*.json") if b"#2a9d8f" in e.read_bytes())
    data = entry.read_bytes()
    entry.write_bytes(data.replace(b"#2a9d8f", b"#e00000"))
    result = copy.render()
    assert result.returncode == 0, result.stderr
    assert "does not match its digest" in result.stderr and "(executed)" in result.stderr, result.stderr
    slides = copy.slides.read_text(encoding="utf-8")
    assert "2a9d8f" in slides and "e00000" not in slides
