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
    assert len([w for w in warnings if "quarto-pending.json: discarded a damaged" in w]) == 1, warnings
    assert json.loads(manifest.read_text(encoding="utf-8")) == {}  # the slides' digest was not pending


# ---- every other state file: read through one reader and checked against its schema ---------------

def _project(mini):
    from lecturekit.project import Project
    return Project(mini.root)


def _stamp_inputs(mini):
    from lecturekit.course.build import stamp
    from lecturekit.write.formats import FORMATS
    return stamp.inputs_of(_project(mini), ["demo"], FORMATS)


def _products():
    from lecturekit.write.formats import FORMATS
    return [fmt.product for fmt in FORMATS.values()]


def _lecture_stamp_used(mini, monkeypatch):
    from lecturekit.course.build import stamp
    return stamp.settled(_project(mini), "demo", _stamp_inputs(mini)["demo"], _products()) is not None


def _course_stamp_used(mini, monkeypatch):
    from lecturekit.course.build import stamp
    return stamp.course_settled(_project(mini), _stamp_inputs(mini))


def _handoff_used(name, kind):
    def used(mini, monkeypatch):
        from lecturekit.course.quarto import handoff
        return handoff.read_state(mini.root / "_build" / name, kind, kind) != {}
    return used


def _confirmed_used(mini, monkeypatch):
    from lecturekit.check import confirmed
    return confirmed.load(mini.root / "_build", "demo", expected(mini)) is not None


def _search_documents_used(mini, monkeypatch):
    """Whether the page's kept documents were used (the page was not read again)."""
    from lecturekit.course.site import pages
    read_again = []
    page_documents = pages.page_documents
    monkeypatch.setattr(pages, "page_documents", lambda *args: read_again.append(1) or page_documents(*args))
    page = mini.root / "_output" / "demo" / "index.html"
    documents = pages._cached_documents(_project(mini), page, "demo", pages.lecture_meta(mini.lecture))
    monkeypatch.undo()
    assert documents and all(isinstance(d["title"], str) for d in documents)
    return not read_again


def _markup_verdict_used(mini, monkeypatch):
    """Whether the kept verdict was used (the markdown was not judged again)."""
    from lecturekit.read import markup
    from lecturekit.read.qmd import read_lecture
    judged = []
    judge = markup.judge
    monkeypatch.setattr(markup, "judge", lambda *args: judged.append(1) or judge(*args))
    read_lecture(mini.lecture / "index.qmd", mini.root)  # the reader checks its markup
    monkeypatch.undo()
    return not judged


def _write_json(path, record):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record), encoding="utf-8")


@pytest.fixture(scope="module")
def accepted_expectations(rendered_mini, tmp_path_factory):
    """The mini lecture's tests/expected/demo.yaml, accepted once (in a copy)."""
    import shutil
    from helpers import run_check
    root = tmp_path_factory.mktemp("accepted") / "project"
    shutil.copytree(rendered_mini.root, root, symlinks=True)
    accepted = run_check(root, "--accept")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    return (root / "tests" / "expected" / "demo.yaml").read_bytes()


def _confirmed_record(mini, request):
    """The lecture's accepted expectations, and a record of digests confirmed against them."""
    from lecturekit.check import confirmed
    expected(mini).parent.mkdir(parents=True, exist_ok=True)
    expected(mini).write_bytes(request.getfixturevalue("accepted_expectations"))
    confirmed.save(mini.root / "_build", "demo", expected(mini),
                   confirmed.Confirmed({"code/minipkg/__init__.py": "0" * 12}, {}))


def _remade_by_render(*args):
    def remake(mini):
        return [mini.render(*args)]
    return remake


def _remade_by_a_code_comment(mini):
    """A comment in code/: the check passes with files other than the expectations', and notes them."""
    with open(mini.root / "code" / "minipkg" / "__init__.py", "a", encoding="utf-8") as f:
        f.write("# a comment\n")
    return [mini.render()]


def quarto_step(root, step):
    """Quarto's pre- or post-render step as `quarto render` of the project runs it (no file placed)."""
    import os
    import subprocess
    import sys
    env = {**os.environ, "QUARTO_PROJECT_OUTPUT_DIR": str(root), "QUARTO_PROJECT_RENDER_ALL": "1",
           "QUARTO_PROJECT_OUTPUT_FILES": ""}
    return subprocess.run([sys.executable, "-m", "lecturekit.cli.quarto", step], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)


def _remade_by_quarto(mini):
    """Post-render reads the file (and goes on without it); the next pre-render writes it again."""
    return [quarto_step(mini.root, "post-render"), quarto_step(mini.root, "pre-render")]


class StateFile:
    def __init__(self, path, schema, limit, used, wrong, remake, valid=None):
        self.path = path  # in the project
        self.schema = schema  # schemas/<schema>.yaml
        self.limit = limit  # what its reader reads at most
        self.used = used  # (mini, monkeypatch) -> whether the reader used what the file records
        self.wrong = wrong  # a record of the right kind -> one of the wrong shape
        self.remake = remake  # mini -> the steps (processes) that read it and make it again
        self.valid = valid  # (mini, request) -> writes a record of the right shape (None: the render left one)


def _limits():
    from lecturekit.check import confirmed
    from lecturekit.course.build import stamp
    from lecturekit.course.quarto import handoff
    from lecturekit.course.site import pages
    from lecturekit.read import markup
    return {"stamp": stamp.MAX_STAMP_BYTES, "handoff": handoff.MAX_STATE_BYTES,
            "confirmed": confirmed.MAX_RECORD_BYTES, "documents": pages.MAX_DOCUMENTS_BYTES,
            "verdict": markup.MAX_VERDICT_BYTES}


STATE_FILES = {
    "lecture stamp": StateFile(
        "_build/demo/stamp.json", "lecture-stamp", "stamp", _lecture_stamp_used,
        lambda rec: {**rec, "notes": [1, 2]}, _remade_by_render()),
    "course stamp": StateFile(
        "_build/stamp.json", "course-stamp", "stamp", _course_stamp_used,
        lambda rec: {**rec, "lectures": ["demo"]}, _remade_by_render()),
    "quarto pending": StateFile(
        "_build/quarto-pending.json", "quarto-pending", "handoff", _handoff_used("quarto-pending.json", "quarto-pending"),
        lambda rec: {**rec, "render": {"demo": {"revealjs": 3}}}, _remade_by_quarto,
        lambda mini, request: _write_json(mini.root / "_build" / "quarto-pending.json", {
            "render": {}, "current": {}, "inputs": {"demo": "0" * 64}, "notes": {"demo": []},
            "course": {"settled": False}})),
    "quarto failed": StateFile(
        "_build/quarto-failed.json", "quarto-failed", "handoff", _handoff_used("quarto-failed.json", "quarto-failed"),
        lambda rec: {"demo": ["an", "error"]}, _remade_by_quarto,
        lambda mini, request: _write_json(mini.root / "_build" / "quarto-failed.json", {"demo": "demo: an error"})),
    "confirmed digests": StateFile(
        "_build/demo/confirmed.json", "confirmed", "confirmed", _confirmed_used,
        lambda rec: {**rec, "code": {"answer": {"cell": 1, "before": 2}}}, _remade_by_a_code_comment,
        _confirmed_record),
    "search documents": StateFile(
        "_build/demo/search-documents.json", "search-documents", "documents", _search_documents_used,
        lambda rec: {**rec, "documents": [{"id": 1}]}, _remade_by_render("--force")),
    "markup verdict": StateFile(
        "_build/markup/demo.json", "markup-verdict", "verdict", _markup_verdict_used,
        lambda rec: {**rec, "files": [["picture.png"]]}, _remade_by_render("--force")),
}


def _linked_outside(path, state, outside):
    """A link to a copy of the record outside the project: a record of the right shape, not read."""
    target = outside / "outside.json"
    target.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(target)
    return target


def _piped(path, state, outside):
    import os
    path.unlink()
    os.mkfifo(path)


def _oversize(path, state, outside):
    path.unlink()
    with open(path, "wb") as f:  # sparse: refused on its size, never read
        f.truncate(_limits()[state.limit] + 1)


def _rewritten(change):
    def damage(path, state, outside):
        path.write_bytes(change(path.read_bytes(), state))
    return damage


# damage: (how: (the file, its StateFile, a folder outside the project) -> the file a link points at,
# if any; what the warning says of it)
STATE_DAMAGE = {
    "not JSON": (_rewritten(lambda data, state: data[:-3]), ""),
    "not UTF-8": (_rewritten(lambda data, state: b'{"\xff": 1}'), "utf-8"),
    "wrong shape": (_rewritten(lambda data, state: json.dumps(state.wrong(json.loads(data))).encode()), "at "),
    "a link to a file outside": (_linked_outside, "symbolic link"),
    "a pipe": (_piped, "not a regular file"),
    "oversize": (_oversize, "more than such a file may hold"),
}


def _fits(path, state):
    from lecturekit import schema
    assert path.is_file() and not path.is_symlink(), path
    return schema.misfit(json.loads(path.read_text(encoding="utf-8")), state.schema) is None


@pytest.mark.parametrize("file,damage", [(f, d) for f in sorted(STATE_FILES) for d in sorted(STATE_DAMAGE)])
def test_a_damaged_state_file_is_discarded_with_one_warning(copy, tmp_path, file, damage, capsys, monkeypatch, request):  # noqa: F811
    """Each state file × each damage, read by its reader in this process: what it records is not
    used, one warning names it, and it is gone (or, for a reader that makes it again at once, made
    again of the right shape), a link's target untouched; read again, nothing more is said."""
    state = STATE_FILES[file]
    path = copy.root / state.path
    if state.valid:
        state.valid(copy, request)
    assert _fits(path, state)
    assert state.used(copy, monkeypatch)  # as written, it is used
    capsys.readouterr()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    how, words = STATE_DAMAGE[damage]
    target = how(path, state, outside)
    before = target.read_bytes() if target else None
    assert not state.used(copy, monkeypatch)
    warnings = capsys.readouterr().err.splitlines()
    assert len(warnings) == 1 and str(path) in warnings[0] and "discarded a damaged" in warnings[0], warnings
    assert words in warnings[0], warnings
    assert "Traceback" not in "\n".join(warnings)
    assert not path.is_symlink() and (not path.exists() or _fits(path, state)), path
    if target:
        assert target.read_bytes() == before  # the link went, never what it points at
    state.used(copy, monkeypatch)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("file,damage", [(f, d) for f in sorted(STATE_FILES) for d in ("wrong shape", "a pipe")])
def test_a_damaged_state_file_is_made_again_by_the_step_that_reads_it(copy, tmp_path, file, damage, request,
                                                                      capsys, monkeypatch):  # noqa: F811
    """The step that reads the file (scripts/render, Quarto's post-render) goes on with one warning
    naming it; it, or the next step, makes the record again, of the right shape, read without a word."""
    state = STATE_FILES[file]
    path = copy.root / state.path
    if state.valid:
        state.valid(copy, request)
    STATE_DAMAGE[damage][0](path, state, tmp_path)
    runs = state.remake(copy)
    for run in runs:
        assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    said = [line for run in runs for line in run.stderr.splitlines() if "discarded a damaged" in line]
    assert len(said) == 1 and state.path in said[0], "\n".join(run.stderr for run in runs)
    assert _fits(path, state)
    capsys.readouterr()
    # Read as made again: used (unless it records nothing: no lecture failed), nothing said.
    assert state.used(copy, monkeypatch) or json.loads(path.read_text(encoding="utf-8")) == {}
    assert capsys.readouterr().err == ""


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
    return checked_course.copied_to(tmp_path / "project")


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


@pytest.mark.parametrize("damage", ["wrong shape", "a pipe"])
def test_a_damaged_render_record_is_discarded_by_pre_render(tmp_path, damage, capsys):
    """`scripts/render --timings`'s record, as Quarto's pre-render reads it: a record that fits names
    the failed lectures; one that does not (another shape, a pipe in its place) is discarded with one
    warning, never waited on, and the render's exit status decides."""
    import json
    import os
    from lecturekit.course.quarto.pre_render import execution_record
    record = tmp_path / "quarto-execute.json"
    record.write_text(json.dumps({"lectures": [{"name": "demo", "error": "demo: boom", "check": ["ok"]}]}))
    assert execution_record(record) == ({"demo": "demo: boom"}, {"demo": ["ok"]}) and not record.exists()
    if damage == "a pipe":
        os.mkfifo(record)
    else:
        record.write_text(json.dumps({"lectures": [{"name": "demo", "error": ["not", "a", "string"]}]}))
    assert execution_record(record) == ({}, {})
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "render record" in warnings[0], warnings


def test_a_pipe_for_the_search_index_record_does_not_hang_the_render(copy):  # noqa: F811
    """`_build/search-documents.json` (what the course's search index was built from) is compared,
    never waited on: a pipe there is a record that differs, and the index is built again."""
    import os
    import subprocess
    import sys
    stamp = copy.root / "_build" / "search-documents.json"
    stamp.unlink(missing_ok=True)
    os.mkfifo(stamp)
    run = subprocess.run([sys.executable, "-m", "lecturekit.cli.render", "--quiet", "--force"], cwd=copy.root,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert stamp.is_file() and not stamp.is_symlink(), "the record is written again as a file"
