"""A course build reads, keys and assembles each lecture once: the plan does it and hands the
worker what it decided (the lecture as read, its key, its cached execution and product inputs).
Counted by wrapping the reader, the cache key and the notebook assembly; the log is a file, so the
counts include the worker processes a parallel build forks."""
import json

import pytest

from lecturekit.course.build import builder as course
from lecturekit.execute import build, cache
from lecturekit.project import Project
from lecturekit.read import qmd

BODY = """\
    ## এক {#sec-one}

    ```{python}
    #| label: make
    n = 3
    print(n * 2)
    ```

    মান `{python} n`।
    """


@pytest.fixture
def counted(monkeypatch, tmp_path):
    """Every read of a lecture's index.qmd, every execution key and every assembled notebook, by
    lecture, in a log file the forked workers append to as well."""
    log = tmp_path / "calls.log"

    def note(what, lecture):
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps([what, lecture]) + "\n")

    read_source, execution_key, executed_notebook = qmd.read_source, cache.execution_key, build.executed_notebook

    def counting_read(path, *args, **kwargs):
        if path.name == "index.qmd":
            note("read", path.parent.name)
        return read_source(path, *args, **kwargs)

    def counting_key(lecture, *args, **kwargs):
        note("key", lecture.name)
        return execution_key(lecture, *args, **kwargs)

    def counting_assembly(lecture, *args, **kwargs):
        note("assemble", lecture.name)
        return executed_notebook(lecture, *args, **kwargs)

    monkeypatch.setattr(qmd, "read_source", counting_read)
    monkeypatch.setattr(cache, "execution_key", counting_key)
    monkeypatch.setattr(build, "executed_notebook", counting_assembly)

    def calls():
        lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
        log.unlink(missing_ok=True)
        counts = {}
        for what, lecture in map(json.loads, lines):
            counts.setdefault(lecture, {}).setdefault(what, 0)
            counts[lecture][what] += 1
        return counts
    return calls


def test_one_build_reads_keys_and_assembles_each_lecture_once(project_builder, counted):
    folders = [project_builder.add_lecture(name, BODY, front={"title": "ক"}) for name in ("01-a", "02-b")]
    project = Project(project_builder.root)
    once = {"read": 1, "key": 1, "assemble": 1}

    def build(**options):
        plans, results = course.build_course(project, folders, ["revealjs"], jobs=2, accept=True, **options)
        assert [r.error for r in results] == [None, None], results
        return plans, results

    # Cold: both execute, in two worker processes.
    plans, results = build()
    assert [p.execute for p in plans] == [True, True] and all(r.executed for r in results)
    assert counted() == {"01-a": once, "02-b": once}
    # Cached, products stale (a prose edit): the plan assembles, the worker only writes.
    for folder in folders:
        index = folder / "index.qmd"
        index.write_text(index.read_text(encoding="utf-8").replace("মান", "মানটি"), encoding="utf-8")
    plans, results = build()
    assert [(p.execute, p.write) for p in plans] == [(False, ["revealjs"])] * 2
    assert [r.written for r in results] == [["revealjs"]] * 2 and not any(r.executed for r in results)
    assert counted() == {"01-a": once, "02-b": once}
    # Nothing changed: the plan alone.
    plans, results = build()
    assert [(p.execute, p.write) for p in plans] == [(False, [])] * 2
    assert counted() == {"01-a": once, "02-b": once}
