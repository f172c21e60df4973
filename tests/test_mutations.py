"""The output check proven by breaking what it guards: edits an author makes by mistake, in the course
code and in a lecture's cells, each applied to its own copy of a small throwaway project.

Every edit that changes a printed digit, a plotted value or a number in the prose must make
`scripts/check` and `scripts/render` fail, name the changed file and show old → new, and leave the
products as they were; an edit that changes no output (a comment, a rename) must pass. The test
counts the edits caught and prints the count. One more test makes the edit from the course's own
history (Dropout left on before the "after" loss of lecture 10's one-step experiment) in a copy of
the real code/.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import textwrap
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import NO_QUARTO, find_quarto, run_check as run_check_cli, run_render as run_render_cli
from lecturekit.cli.check import main as check_main
from lecturekit.check.expectations import Expectations
from lecturekit.cli.render import main as render_main
from lecturekit.course.scaffold.projects import ProjectBuilder

ROOT = Path(__file__).resolve().parents[1]
NAME = "05-step"
CODE = "code/minitrain/train.py"
SECTION = f"lectures/{NAME}/_01-step.qmd"

TRAIN = '''
    """A tiny training step: the experiment the fixture lecture prints."""
    import torch
    from torch import nn

    LR = 0.1
    N_ROWS = 16


    def make_model(seed=0):
        torch.manual_seed(seed)
        return nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 1))


    def data():
        g = torch.Generator().manual_seed(1)
        x = torch.randn(N_ROWS, 3, generator=g)
        return x, x.sum(1, keepdim=True) * 10 + 50


    def one_step(model, lr=LR):
        x, y = data()
        model.eval()
        with torch.no_grad():
            before = nn.functional.mse_loss(model(x), y).item()
        model.train()
        torch.manual_seed(2)
        loss = nn.functional.mse_loss(model(x), y)
        model.zero_grad()
        loss.backward()
        with torch.no_grad():  # SGD's step by hand: torch.optim's first use costs seconds per kernel
            for p in model.parameters():
                p -= lr * p.grad
        model.eval()
        with torch.no_grad():
            after = nn.functional.mse_loss(model(x), y).item()
        return {"before": before, "after": after, "train": loss.item()}


    def curve(steps=4):
        model = make_model()
        return [one_step(model)["after"] for _ in range(steps)]


    def bn(x, digits=1):
        return f"{x:,.{digits}f}".translate(str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯"))
    '''

LECTURE = '''
    # এক ধাপ {#sec-step}

    ## loss {#sec-loss}

    ```{python}
    #| label: step
    from minitrain import make_model, one_step, bn
    model = make_model(0)
    r = one_step(model)
    print(f"train-mode loss {r['train']:.4f}")
    print(f"eval loss {r['before']:.4f} -> {r['after']:.4f}")
    ```

    একটি ধাপে loss `{python} bn(r['before'])` থেকে নেমে `{python} bn(r['after'])`।

    ## weight {#sec-weight}

    ```{python}
    #| label: weight
    import torch
    with torch.no_grad():
        out = model[0].weight[0] * 2
    print(out)
    ```

    ## ছবি {#sec-curve}

    ```{python}
    #| label: fig-curve
    #| fig-cap: "loss, ধাপে ধাপে"
    import matplotlib.pyplot as plt
    from minitrain.train import curve
    losses = curve()
    fig, ax = plt.subplots()
    ax.plot(range(1, len(losses) + 1), losses, label="eval loss")
    ax.legend()
    plt.show()
    ```
    '''


@dataclass(frozen=True)
class Edit:
    name: str
    file: str
    old: str
    new: str
    changes_output: bool = True


EDITS = [
    # Course code: what an author breaks while refactoring.
    Edit("eval() removed before the after-loss", CODE,
         "            p -= lr * p.grad\n    model.eval()\n", "            p -= lr * p.grad\n"),
    Edit("learning rate constant", CODE, "LR = 0.1", "LR = 0.05"),
    Edit("loss reduction", CODE, "loss = nn.functional.mse_loss(model(x), y)",
         "loss = nn.functional.mse_loss(model(x), y, reduction='sum') / 8"),
    Edit("one row fewer", CODE, "N_ROWS = 16", "N_ROWS = 15"),
    Edit("prose rounding", CODE, "def bn(x, digits=1):", "def bn(x, digits=2):"),
    Edit("plotted steps", CODE, "def curve(steps=4):", "def curve(steps=5):"),
    # A lecture's cells.
    Edit("seed in a cell", SECTION, "model = make_model(0)", "model = make_model(1)"),
    Edit("printed precision", SECTION, "{r['train']:.4f}", "{r['train']:.3f}"),
    Edit("no_grad removed", SECTION, "with torch.no_grad():\n    out = model[0].weight[0] * 2",
         "if True:\n    out = model[0].weight[0] * 2"),
    Edit("plotted value scaled", SECTION, "ax.plot(range(1, len(losses) + 1), losses,",
         "ax.plot(range(1, len(losses) + 1), [v * 1.0001 for v in losses],"),
    # Edits that change no output: they must pass.
    Edit("comment in the course code", CODE, "    x, y = data()\n", "    x, y = data()  # the same 16 rows\n", False),
    Edit("local variable renamed", CODE, "        after = nn.functional.mse_loss(model(x), y).item()\n"
         "    return {\"before\": before, \"after\": after,",
         "        loss_after = nn.functional.mse_loss(model(x), y).item()\n"
         "    return {\"before\": before, \"after\": loss_after,", False),
    Edit("comment in a cell", SECTION, "model = make_model(0)\n", "model = make_model(0)  # seed 0\n", False),
]


def run(main, proj, monkeypatch, capsys, *argv):
    monkeypatch.chdir(proj)
    status = main(["--quiet", *argv])
    out = capsys.readouterr()
    return status, out.out + out.err


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def shows_old_and_new(out):
    """A diff line that went and one that came, or a prose value old → new."""
    lines = [line.strip() for line in out.split("\n")]
    went = any(line.startswith("-") and not line.startswith("---") for line in lines)
    came = any(line.startswith("+") and not line.startswith("+++") for line in lines)
    return (went and came) or any("` " in line and " → " in line for line in lines)


@pytest.fixture(scope="module")
def fixture_project(tmp_path_factory):
    project = ProjectBuilder(tmp_path_factory.mktemp("mutations") / "proj", ROOT)
    project.add_package("minitrain", {"__init__.py": "from .train import make_model, one_step, bn\n",
                                      "train.py": textwrap.dedent(TRAIN).lstrip("\n")})
    project.add_package("courseplot", {p.name: p.read_text(encoding="utf-8")
                                       for p in (ROOT / "code" / "courseplot").iterdir() if p.is_file()})
    project.add_lecture(NAME, "\n{{< include _01-step.qmd >}}\n", front={"title": "এক ধাপ"},
                        sections={"_01-step.qmd": textwrap.dedent(LECTURE).lstrip("\n")})
    return project.root


def try_edit(clean: Path, copy: Path, edit: Edit) -> tuple[int, str, int, str]:
    """One edit in its own copy of the accepted and rendered project: the check and the render, as an
    author runs them (the commands, in a process of their own); then the edit undone."""
    shutil.copytree(clean, copy, symlinks=True)
    path = copy / edit.file
    original = path.read_text(encoding="utf-8")
    path.write_text(original.replace(edit.old, edit.new), encoding="utf-8")
    try:
        checked = run_check_cli(copy, "--quiet", NAME)
        rendered = run_render_cli(copy, "--quiet", "--to", "revealjs", "--no-index", NAME)
    finally:
        path.write_text(original, encoding="utf-8")
    return checked.returncode, checked.stdout + checked.stderr, rendered.returncode, rendered.stdout + rendered.stderr


def test_every_output_changing_edit_fails_check_and_render_and_a_harmless_one_passes(
        fixture_project, monkeypatch, capsys, tmp_path):
    proj = fixture_project
    status, out = run(check_main, proj, monkeypatch, capsys, NAME, "--accept")
    assert status == 0, out
    stored = Expectations(proj / "tests" / "expected" / f"{NAME}.yaml", NAME)
    assert stored.prose and stored.files[CODE]  # prose values and file digests recorded
    status, out = run(render_main, proj, monkeypatch, capsys, "--to", "revealjs", "--no-index", NAME)
    assert status == 0, out
    products = digest(proj / "_output" / NAME / "slides.html")
    for edit in EDITS:
        assert (proj / edit.file).read_text(encoding="utf-8").count(edit.old) == 1, edit.name

    # Each edit in a copy of its own, two at a time: every edit starts a kernel, and a kernel keeps
    # one core busy while the other waits.
    copies = [tmp_path / f"edit-{n}" for n in range(len(EDITS))]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda job: try_edit(proj, *job), zip(copies, EDITS)))

    caught, missed, passed_wrongly = [], [], []
    for edit, copy, (status, out, r_status, r_out) in zip(EDITS, copies, results):
        if not edit.changes_output:
            if status != 0 or r_status != 0:
                passed_wrongly.append((edit.name, out + r_out))
            continue
        ok = (status == 1 and edit.file in out and shows_old_and_new(out)
              and r_status == 1 and edit.file in r_out and shows_old_and_new(r_out)
              and f"scripts/check {NAME} --accept" in r_out.strip().split("\n")[-1]
              and digest(copy / "_output" / NAME / "slides.html") == products)
        (caught if ok else missed).append((edit.name, out + "\n--- render ---\n" + r_out))
    # With the edit undone, each copy checks clean again, in one line.
    for copy in copies:
        status, out = run(check_main, copy, monkeypatch, capsys, NAME)
        assert status == 0 and len(out.strip().split("\n")) == 1, out
    changing = sum(e.changes_output for e in EDITS)
    print(f"output-changing edits caught by check and render: {len(caught)} of {changing}; "
          f"harmless edits passed: {sum(not e.changes_output for e in EDITS) - len(passed_wrongly)} of "
          f"{sum(not e.changes_output for e in EDITS)}")
    assert not missed, "\n\n".join(f"MISSED: {name}\n{out}" for name, out in missed)
    assert not passed_wrongly, "\n\n".join(f"FAILED A HARMLESS EDIT: {name}\n{out}" for name, out in passed_wrongly)


def test_a_new_cell_renders_unrecorded_until_accepted_and_render_accepts_in_one_step(fixture_project, monkeypatch,
                                                                                     capsys):
    """A new cell renders, said to be unchecked until recorded; the render writes no expectation
    (only --accept does), the check reports it missing, `render --accept` records it."""
    proj = fixture_project
    status, out = run(check_main, proj, monkeypatch, capsys, NAME, "--accept")
    assert status == 0, out
    expected = proj / "tests" / "expected" / f"{NAME}.yaml"
    accepted = expected.read_bytes()
    section = proj / SECTION
    original = section.read_text(encoding="utf-8")
    section.write_text(original + "\n```{python}\n#| label: extra\nprint(len(losses))\n```\n", encoding="utf-8")
    try:
        status, out = run(render_main, proj, monkeypatch, capsys, "--to", "revealjs", "--no-index", NAME)
        assert status == 0, out
        assert (f"new cells without an expectation, not checked until recorded (scripts/check {NAME} --accept): "
                "extra") in out
        assert expected.read_bytes() == accepted
        status, out = run(check_main, proj, monkeypatch, capsys, NAME)
        assert status == 1 and "MISSING" in out, out
        status, out = run(render_main, proj, monkeypatch, capsys, "--to", "revealjs", "--no-index", "--accept", NAME)
        assert status == 0 and "accepted 1: extra" in out, out
        assert Expectations(expected, NAME).get("extra")["outputs"] == [{"stdout": "4\n"}]
        # A changed output: render --accept takes it and writes the products.
        section.write_text(section.read_text(encoding="utf-8").replace("print(len(losses))",
                                                                       "print(len(losses) + 1)"), encoding="utf-8")
        status, out = run(render_main, proj, monkeypatch, capsys, "--to", "revealjs", "--no-index", NAME)
        assert status == 1 and "-4" in out and "+5" in out
        status, out = run(render_main, proj, monkeypatch, capsys, "--to", "revealjs", "--no-index", "--accept", NAME)
        assert status == 0 and "accepted 1: extra" in out, out
        assert "5" in (proj / "_output" / NAME / "slides.html").read_text(encoding="utf-8")
    finally:
        section.write_text(original, encoding="utf-8")
    status, out = run(check_main, proj, monkeypatch, capsys, NAME, "--accept")
    assert status == 0, out


ONE_STEP = '''
    # এক ধাপ {#sec-step}

    ```{python}
    #| label: one-step
    from bazarghar import bn
    import bazarghar.experiments as ex
    r = ex.one_step_demo(1e-3, 0.9)
    print(ex.format_one_step(r))
    ```

    একই batch-এ loss `{python} bn(r['batch_loss_before'], 1)` থেকে `{python} bn(r['batch_loss_after'], 1)`।
    '''


def test_dropout_left_on_in_the_real_one_step_experiment_is_caught(tmp_path, monkeypatch, capsys):
    """The real course code: `model.eval()` removed before lecture 10's "after" loss."""
    project = ProjectBuilder(tmp_path / "proj", ROOT)
    project.copy_code()
    project.add_lecture("10-step", "\n{{< include _01.qmd >}}\n", front={"title": "ধাপ"},
                        sections={"_01.qmd": textwrap.dedent(ONE_STEP).lstrip("\n")})
    proj = project.root
    status, out = run(check_main, proj, monkeypatch, capsys, "10-step", "--accept")
    assert status == 0, out
    source = proj / "code" / "bazarghar" / "experiments" / "one_step.py"
    text = source.read_text(encoding="utf-8")
    broken = '    r["bias_after"] = model.head.bias.item()\n    model.eval()\n'
    assert text.count(broken) == 1
    source.write_text(text.replace(broken, '    r["bias_after"] = model.head.bias.item()\n'), encoding="utf-8")
    status, out = run(check_main, proj, monkeypatch, capsys, "10-step")
    print(out)
    assert status == 1
    assert "why: the code changed (files: code/bazarghar/experiments/one_step.py)" in out
    went = [line for line in out.split("\n") if line.strip().startswith("-একই batch, eval mode-এ loss")]
    came = [line for line in out.split("\n") if line.strip().startswith("+একই batch, eval mode-এ loss")]
    assert went and came and went[0][1:] != came[0][1:]
    prose = [line for line in out.split("\n") if "`{python} bn(r['batch_loss_after'], 1)`" in line]
    old, new = prose[0].split("`  ")[-1].split(" → ")
    assert old != new and "now: একই batch-এ loss" in out


@pytest.mark.skipif(find_quarto() is None, reason=NO_QUARTO)
def test_quarto_render_stops_on_a_changed_output(fixture_project, monkeypatch, capsys, tmp_path):
    """`quarto render`'s pre-render checks: a changed output fails the render with the report."""
    import subprocess
    proj = tmp_path / "quarto"
    shutil.copytree(fixture_project, proj, symlinks=True,
                    ignore=shutil.ignore_patterns("_output", "_build", "__pycache__"))
    # The execution cache (when the tests above left one), so that recording the expectations starts
    # no kernel: the edit's execution is the one that counts.
    if (fixture_project / "_build" / "cache").is_dir():
        shutil.copytree(fixture_project / "_build" / "cache", proj / "_build" / "cache")
    shutil.copytree(ROOT / "scripts", proj / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "package.json"):
        shutil.copy(ROOT / name, proj / name)
    (proj / ".venv").symlink_to(ROOT / ".venv")
    status, out = run(check_main, proj, monkeypatch, capsys, NAME, "--accept")
    assert status == 0, out
    path = proj / CODE
    path.write_text(path.read_text(encoding="utf-8").replace("LR = 0.1", "LR = 0.05"), encoding="utf-8")
    env = {**os.environ, "QUARTO_PYTHON": str(ROOT / ".venv" / "bin" / "python")}
    run_q = subprocess.run([find_quarto(), "render"], cwd=proj, env=env, capture_output=True, text=True, timeout=900)
    log = run_q.stdout + run_q.stderr
    assert run_q.returncode != 0, log[-3000:]
    assert f"[{NAME}] outputs changed: not rendered" in log and CODE in log and shows_old_and_new(log), log[-3000:]
    assert f"scripts/render {NAME} --accept" in log
    assert not (proj / "_output" / NAME / "slides.html").exists()
