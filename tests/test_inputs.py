"""One rule for "is this still valid?" (lecturekit/inputs.py).

Six records decide whether something is done again: the execution key, each product's inputs, the
stamps, the confirmed digests, the markup verdicts and the search documents. Each takes the digest
of every file it covers from lecturekit.inputs: when the module is made to see one file otherwise
(its digest changed, the file left alone), every record covering that file follows. A record that
read the file on its own would not, and two records could then disagree about one file.
"""
import json
import os
import time

import pytest

from lecturekit import inputs
from lecturekit.project import Project


def seen_otherwise(monkeypatch, path):
    """lecturekit.inputs digests `path` as if its bytes had changed; the file is left as it is."""
    target = os.path.abspath(path)
    real = inputs._digest
    monkeypatch.setattr(inputs, "_digest", lambda at: "0" * 64 if at == target else real(at))


def execution_key(project):
    from lecturekit.execute import cache
    from lecturekit.read import qmd
    lecture = qmd.read_lecture(project.lectures_dir / "demo" / "index.qmd", project.root)
    return cache.execution_key(lecture, project.code_dir, {"torch": "same"})


def stamp_inputs(project):
    from lecturekit.course.build import stamp
    from lecturekit.write.formats import FORMATS
    return stamp.inputs_of(project, ["demo"], FORMATS)["demo"]


def product_inputs(project):
    from lecturekit.course.build.products import product_inputs, theme_digest
    return product_inputs(theme_digest(project), b"{}", project.lectures_dir / "demo", "html", links=True)


def confirmed_holds(project):
    """Whether the confirmed digests made against the expectations file still hold for it."""
    from lecturekit.check import confirmed
    expected = project.root / "tests" / "expected" / "demo.yaml"
    if not (project.build_dir / "demo" / confirmed.RECORD).exists():  # made once, on the first read
        confirmed.save(project.build_dir, "demo", expected, confirmed.Confirmed({}, {}))
    return confirmed.load(project.build_dir, "demo", expected) is not None


def project_files(project):
    from lecturekit.check.cause import project_files
    return project_files(project.root, project.code_dir, project.lectures_dir / "demo")


def markup_rules(project):
    from lecturekit.read import markup
    return markup._rules_digest()


def search_documents(project):
    """What the page's kept search documents are kept for (read again when it changes)."""
    from lecturekit.course.site import pages
    from lecturekit.course.site.pages import lecture_meta
    pages._cached_documents(project, project.output_dir / "demo" / "index.html", "demo",
                            lecture_meta(project.lectures_dir / "demo"))
    return json.loads((project.build_dir / "demo" / "search-documents.json").read_text(encoding="utf-8"))["stamp"]


# (record, how it is read, a file it covers: from the project's root, or "kit:" from the kit's)
RECORDS = [
    ("the execution key", execution_key, "code/minipkg/__init__.py"),
    ("the stamp", stamp_inputs, "code/minipkg/__init__.py"),
    ("the stamp", stamp_inputs, "tests/expected/demo.yaml"),
    ("the stamp", stamp_inputs, "kit:check/compare.py"),
    ("the products' inputs", product_inputs, "lectures/demo/index.qmd"),
    ("the products' inputs", product_inputs, "_quarto.yml"),
    ("the products' inputs", product_inputs, "kit:write/emit.py"),
    ("the confirmed digests", confirmed_holds, "tests/expected/demo.yaml"),
    ("the confirmed digests", project_files, "code/minipkg/__init__.py"),
    ("the markup verdicts", markup_rules, "kit:read/markup.py"),
    ("the search documents", search_documents, "_output/demo/index.html"),
]


@pytest.mark.parametrize("record, read, covered", RECORDS, ids=[f"{r[0]}: {r[2]}" for r in RECORDS])
def test_every_record_takes_its_digests_from_the_one_module(copy, monkeypatch, record, read, covered):
    project = Project(copy.root)
    path = inputs.KIT / covered[4:] if covered.startswith("kit:") else copy.root / covered
    if covered.startswith("tests/expected/"):  # the demo's outputs have no expectations: an empty file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}\n", encoding="utf-8")
    assert path.is_file(), path
    before = read(project)
    assert read(project) == before  # the record is stable while nothing changes
    seen_otherwise(monkeypatch, path)
    assert read(project) != before, f"{record} does not follow lecturekit.inputs' digest of {covered}"


def test_an_execution_key_and_a_stamp_agree_about_a_data_file(copy):
    """A data file beside the lecture: the key (cells read it) and the stamp change together; the
    prose (index.qmd) changes the stamp only."""
    project = Project(copy.root)
    key, stamp = execution_key(project), stamp_inputs(project)
    (copy.lecture / "index.qmd").write_text((copy.lecture / "index.qmd").read_text(encoding="utf-8") + "\nআরও।\n",
                                             encoding="utf-8")
    assert execution_key(project) == key and stamp_inputs(project) != stamp
    stamp = stamp_inputs(project)
    (copy.lecture / "data.csv").write_text("1,2\n", encoding="utf-8")
    assert execution_key(project) != key and stamp_inputs(project) != stamp


def test_a_link_out_of_the_project_a_pipe_and_no_file_are_marked_not_read(tmp_path):
    root = tmp_path / "project"
    (root / "lecture").mkdir(parents=True)
    (tmp_path / "secret.txt").write_text("not the project's\n")
    (root / "lecture" / "data.csv").write_text("1,2\n")
    (root / "lecture" / "out.txt").symlink_to(tmp_path / "secret.txt")
    (root / "lecture" / "in.csv").symlink_to(root / "lecture" / "data.csv")
    os.mkfifo(root / "lecture" / "pipe")
    (root / "lecture" / "__pycache__").mkdir()
    (root / "lecture" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    found = dict(inputs.tree(root / "lecture", root))
    assert found == {"data.csv": inputs.file(root / "lecture" / "data.csv"), "in.csv": found["data.csv"],
                     "out.txt": inputs.OUTSIDE, "pipe": inputs.SPECIAL}
    assert inputs.file(root / "lecture" / "out.txt", root) == inputs.OUTSIDE
    assert inputs.file(root / "lecture" / "none.csv", root) == inputs.ABSENT
    assert inputs.tree(root / "none", root) == []


def test_a_remembered_digest_is_not_kept_for_a_file_rewritten_with_the_same_size(tmp_path, monkeypatch):
    monkeypatch.setattr(inputs, "SETTLED_NS", -10**18)  # every file counts as settled: remembered
    monkeypatch.setattr(inputs, "_remembered", {})
    path = tmp_path / "data.csv"
    path.write_text("1,2\n")
    first = inputs.file(path)
    assert str(path) in inputs._remembered and inputs.file(path) == first
    time.sleep(0.05)  # past the clock's tick: the rewrite has another change time
    path.write_text("3,4\n")
    assert inputs.file(path) != first
