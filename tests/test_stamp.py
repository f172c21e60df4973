"""The stamp Quarto's pre-render trusts to skip a lecture without reading it (course/build/stamp.py).

After a full render, the lecture's stamp holds, and `quarto render`'s pre-render hands Quarto
nothing without importing the executor. Every kind of input a render reads, and everything it left,
breaks the stamp when it changes: the lecture's text and data files, the course code, the
expectations, `_quarto.yml`, a filter, the npm lock file, the kit's own code, an output-changing
variable, an installed package, a product, the notebook, a figure, the cache entry, a new lecture
(the page links its neighbours), the page's links. A stamp that
held through one of them would let `quarto render` skip a lecture whose outputs or products changed.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest



def edit(path, text="\n# edited\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)


def touch_later(path):
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


MUTATIONS = {
    "a prose word": lambda root, mp: edit(root / "lectures" / "demo" / "index.qmd", "\nএকটি নতুন বাক্য।\n"),
    "a data file beside the lecture": lambda root, mp: edit(root / "lectures" / "demo" / "data.csv", "1,2\n"),
    "the course code": lambda root, mp: edit(root / "code" / "minipkg" / "__init__.py"),
    "the expectations": lambda root, mp: edit(root / "tests" / "expected" / "demo.yaml", "# note\n"),
    "_quarto.yml": lambda root, mp: edit(root / "_quarto.yml"),
    "a filter": lambda root, mp: edit(root / "_extensions" / "lecture" / "filters" / "quiz.lua", "\n-- edited\n"),
    "the npm lock file": lambda root, mp: edit(root / "package-lock.json", "\n"),
    "the kit's code": lambda root, mp: kit_edited(root, mp),
    "an output-changing variable": lambda root, mp: mp.setenv("ATEN_CPU_CAPABILITY", "default"),
    "an installed package": lambda root, mp: installed_changed(mp),
    "the slides touched": lambda root, mp: touch_later(root / "_output" / "demo" / "slides.html"),
    "the handout deleted": lambda root, mp: (root / "_output" / "demo" / "handout.pdf").unlink(),
    "the notebook rewritten": lambda root, mp: touch_later(root / "_build" / "demo" / "demo.ipynb"),
    "a hand-drawn figure": lambda root, mp: edit(root / "figures" / "demo" / "hand.svg", "<svg/>"),
    "the cache entry removed": lambda root, mp: [p.unlink() for p in (root / "_build" / "cache" / "demo").glob("*")],
    # The page links its neighbours by title: another lecture's front matter, or a new lecture.
    "a new lecture beside it": lambda root, mp: edit(root / "lectures" / "demo2" / "index.qmd", "---\ntitle: দুই\n---\n"),
    "the page deleted": lambda root, mp: (root / "_output" / "demo" / "index.html").unlink(),
    "the page's links touched": lambda root, mp: touch_later(root / "_build" / "demo" / "_metadata.yml"),
    "the products manifest touched": lambda root, mp: touch_later(root / "_build" / "demo" / "products.json"),
}


def kit_edited(root, monkeypatch):
    """A copy of the kit with one module edited (the real kit is every test's)."""
    from lecturekit import inputs
    kit = root / "kit-copy" / "lecturekit"
    shutil.copytree(inputs.KIT, kit, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(inputs, "KIT", kit)
    return kit


def installed_changed(monkeypatch):
    from lecturekit import inputs
    installed = inputs.installed()
    monkeypatch.setattr(inputs, "installed", lambda: [*installed, ["purelib", "newpkg-1.0.dist-info", 0]])


def holds(root):
    from lecturekit.course.build import stamp
    from lecturekit.project import Project
    from lecturekit.write.formats import FORMATS
    project = Project(root)
    inputs = stamp.inputs_of(project, ["demo"], FORMATS)
    return stamp.settled(project, "demo", inputs["demo"], [f.product for f in FORMATS.values()]) is not None


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_the_stamp_breaks_when_anything_a_render_reads_or_left_changes(copy, mutation, monkeypatch):  # noqa: F811
    if mutation == "the kit's code":  # the stamp of the copied kit, before its edit
        kit = kit_edited(copy.root, monkeypatch)
        from lecturekit.course.build import stamp
        from lecturekit.project import Project
        from lecturekit.write.formats import FORMATS
        products = [f.product for f in FORMATS.values()]
        project = Project(copy.root)
        stamp.record(project, "demo", stamp.inputs_of(project, ["demo"], FORMATS)["demo"], products, [])
        assert holds(copy.root)
        edit(kit / "check" / "compare.py")
    else:
        assert holds(copy.root)
        MUTATIONS[mutation](copy.root, monkeypatch)
    assert not holds(copy.root)


def pre_render(root):
    """Quarto's pre-render as Quarto runs it for `quarto render` (a render of the whole project),
    and which heavy modules it imported."""
    code = ("import sys\nfrom lecturekit.cli import quarto\nstatus = quarto.main(['pre-render'])\n"
            "print('IMPORTED', sorted(m for m in ('lecturekit.execute.kernel', 'lecturekit.execute.build', "
            "'nbclient', 'nbformat', 'jinja2') if m in sys.modules))\nsys.exit(status)")
    env = {**os.environ, "QUARTO_PROJECT_OUTPUT_DIR": str(root), "QUARTO_PROJECT_RENDER_ALL": "1"}
    run = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout + run.stderr


def test_with_the_stamp_holding_pre_render_reads_nothing_and_imports_no_executor(copy):  # noqa: F811
    log = pre_render(copy.root)
    assert "quarto: nothing to render" in log and "IMPORTED []" in log, log
    assert "execute:" not in log, log  # the lecture was not planned
    render_list = (copy.root / "_build" / "quarto-render.yml").read_text(encoding="utf-8")
    assert "demo.ipynb" not in render_list
    pending = json.loads((copy.root / "_build" / "quarto-pending.json").read_text(encoding="utf-8"))
    assert pending["course"]["settled"] is True
    # A prose edit: the lecture is read, checked and listed for Quarto again.
    edit(copy.lecture / "index.qmd", "\nএকটি নতুন বাক্য।\n")
    log = pre_render(copy.root)
    assert "[demo] execute:" in log and "lecturekit.execute.build" in log, log
    assert "_build/demo/demo.ipynb" in (copy.root / "_build" / "quarto-render.yml").read_text(encoding="utf-8")


def test_stamps_are_ignored_when_accepting(copy, monkeypatch):  # noqa: F811
    """`LECTUREKIT_ACCEPT=1 quarto render` accepts: every lecture is read and checked."""
    monkeypatch.setenv("LECTUREKIT_ACCEPT", "1")
    assert "[demo] execute:" in pre_render(copy.root)



def test_with_the_stamp_holding_our_render_reads_nothing(copy):  # noqa: F811
    """`scripts/render` trusts the same stamp: a lecture whose stamp holds is not read, keyed or
    checked, and the course page is not written again; a changed expectation plans it in full."""
    from helpers import run_render
    run = run_render(copy.root)
    assert run.returncode == 0, run.stderr
    assert "[demo] up to date (nothing it is made from changed)" in run.stderr, run.stderr
    assert "execute:" not in run.stderr, run.stderr
    edit(copy.root / "tests" / "expected" / "demo.yaml", "# note\n")
    run = run_render(copy.root)
    assert run.returncode == 0 and "[demo] execute:" in run.stderr, run.stderr
    for flag in ("--force", "--accept"):
        assert "[demo] execute:" in run_render(copy.root, flag).stderr
