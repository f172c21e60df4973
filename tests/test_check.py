"""scripts/check: outputs against tests/expected, claims, --accept, the upgrade report.

Small lectures in a temporary project (its own _quarto.yml, lectures/ and a tiny `shop` package in
code/) keep each kernel start cheap; the last test checks the real lectures from the render cache.
"""
from __future__ import annotations

import functools
import importlib.metadata
import os
import re
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

from lecturekit import inputs  # noqa: E402
from lecturekit.execute import cache, kernelenv  # noqa: E402
from lecturekit.read import qmd  # noqa: E402
from lecturekit.cli.check import main  # noqa: E402
from lecturekit.check.cause import environment_changes  # noqa: E402
from lecturekit.check.envs import display_width, table as compare_table  # noqa: E402
from lecturekit.check.compare import Tolerance, items_match, texts_match, tolerance_of, within_tolerance  # noqa: E402
from lecturekit.check.expectations import Expectations, dump_entry, entry_for  # noqa: E402
from lecturekit.check.normalise import normalise, output_items  # noqa: E402
from lecturekit.check.readers import assigned_names, read_names  # noqa: E402
from lecturekit.check.report import lecture_report  # noqa: E402
from lecturekit.check.run import check_lecture  # noqa: E402
from lecturekit.errors import LectureError  # noqa: E402
from lecturekit.project import Project  # noqa: E402
from lecturekit.course.scaffold.projects import ProjectBuilder  # noqa: E402
from budget import charge  # noqa: E402
from helpers import run_measured  # noqa: E402

VERSIONS = {"python": "3.11.7", "torch": "2.13.0+cpu", "numpy": "2.4.6"}

SHOP = {
    "__init__.py": "from .model import P_DROP, CATEGORIES, Net, Figure, PRICES\nfrom .loader import load\n",
    "model.py": '''
        P_DROP = 0.1
        CATEGORIES = ("চাল", "ডাল", "তেল")
        PRICES = (1, 2, 3)


        class Net:
            def __init__(self, p=P_DROP):
                self.p = p

            def __repr__(self):
                return f"Net(\\n  (hidden): Linear(3, 16)\\n  (drop): Dropout(p={self.p})\\n)"


        class Figure:
            """A figure as modtree returns one: DOT source plus a rendering."""

            def __init__(self, net):
                self.source = f'digraph net {{ hidden -> drop [label="p={net.p}"]; }}'

            def _repr_mimebundle_(self, include=None, exclude=None):
                return {"image/svg+xml": "<svg xmlns='http://www.w3.org/2000/svg'/>",
                        "text/vnd.graphviz": self.source, "text/plain": "Net-এর ছবি"}
        ''',
    "loader.py": '''
        STRICT = True


        def load(key):
            if STRICT:
                raise KeyError(f"no such key: {key}")
            return "loaded"
        ''',
}


# ---------------------------------------------------------------- helpers


def make_project(tmp_path, lecture, sections, shop=None):
    """A project with one lecture (sections: file name -> text) and the shop package in code/."""
    project = ProjectBuilder(tmp_path / "proj", ROOT)
    index = "\n" + "\n".join(f"{{{{< include {n} >}}}}\n" for n in sections)
    project.add_lecture(lecture, index, front={"title": "পরীক্ষা"},
                        sections={name: textwrap.dedent(text).lstrip("\n") for name, text in sections.items()})
    project.add_package("shop", {name: textwrap.dedent(text).lstrip("\n") for name, text in (shop or SHOP).items()})
    return project.root


def run_check(proj, monkeypatch, capsys, *argv):
    monkeypatch.chdir(proj)
    status = main(["--quiet", *argv])
    out = capsys.readouterr()
    return status, out.out + out.err


def fence_line(path, label):
    """Line of the ```{python} fence of the cell with this label."""
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if line.strip() == f"#| label: {label}")
    return next(i for i in range(at, -1, -1) if lines[i].startswith("```{python}")) + 1


def chunks(path):
    """The expectations file split into its header and per-label texts."""
    return Expectations(path, Path(path).stem).chunks, Expectations(path, Path(path).stem).header


def failing_labels(output, title="DRIFT"):
    return {line.split(" › ")[-1].strip() for line in output.split("\n") if line.startswith(title + " ")}


# ---------------------------------------------------------------- units: no kernel


def test_normalisers_remove_addresses_ansi_temp_paths_and_nothing_else():
    a = "<Net object at 0x7f3a2c1b4d90> \x1b[31mলাল\x1b[0m /tmp/tmpab12cd_x/model.pt  \nnext"
    b = "<Net object at 0x55d0c0ffee00> লাল /tmp/tmpzz99yy00/model.pt\nnext"
    assert normalise(a) == normalise(b) == "<Net object at 0x…> লাল <tmp>/model.pt\nnext"
    assert normalise("/root/x/.venv/lib/python3.11/site-packages/torch/nn.py:12: W") == \
        "<site-packages>/torch/nn.py:12: W"
    assert normalise("/work/p/_build/run/a.pt", "/work/p") == "<project>/_build/run/a.pt"
    # Numbers, short hex literals and other text are left alone, so real drift stays visible.
    assert normalise("0xff p=0.1") == "0xff p=0.1"
    assert normalise("p=0.1") != normalise("p=0.2")


def test_outputs_become_items_figures_by_their_dot_source():
    outputs = [
        {"output_type": "stream", "name": "stdout", "text": "a\n"},
        {"output_type": "stream", "name": "stderr", "text": "warn\n"},
        {"output_type": "stream", "name": "stdout", "text": "b\n"},
        {"output_type": "display_data", "data": {"image/svg+xml": "<svg/>", "text/vnd.graphviz": "digraph {}",
                                                  "text/plain": "alt"}},
        {"output_type": "display_data", "data": {"image/png": "iVBOR", "text/plain": "<Figure 1>"}},
        {"output_type": "execute_result", "data": {"text/plain": "tensor([1.])"}},
        {"output_type": "error", "ename": "ValueError", "evalue": "bad \x1b[1mvalue\x1b[0m",
         "traceback": ["..."]},
    ]
    assert output_items(outputs) == [
        {"stdout": "a\nb\n"}, {"stderr": "warn\n"}, {"figure-dot": "digraph {}"}, {"figure": "<Figure 1>"},
        {"result": "tensor([1.])"}, {"error": "ValueError", "message": "bad value"}]


def test_numbers_compared_exactly_unless_the_cell_declares_a_tolerance():
    assert not texts_match("loss 0.12345", "loss 0.12346")
    assert texts_match("loss 0.12345", "loss 0.12346", Tolerance(abs=1e-4))
    assert not texts_match("loss 0.12345", "loss 0.12446", Tolerance(abs=1e-4))
    assert texts_match("tensor([1.0000, 2.5000])", "tensor([1.00001, 2.5])",
                       tolerance_of({"tolerance": {"rel": 1e-4, "abs": 1e-4, "why": "measured"}}))
    assert not texts_match("loss 0.1", "gain 0.1", Tolerance(1, 1))  # text between numbers stays exact
    assert texts_match("মোট ২০৯", "মোট 209.0", Tolerance(abs=1e-9))  # Bengali digits are numbers
    assert tolerance_of({"tolerance": {"rel": 1e-5, "why": "AVX2 vs AVX512"}}) == Tolerance(1e-5, 0.0, "AVX2 vs AVX512")
    with pytest.raises(LectureError, match="rel and abs"):
        tolerance_of({"tolerance": {"relative": 1, "why": "x"}}, ("a.qmd", 3, "x"))
    # Exact by default: a tolerance must say which measured difference it covers.
    for unexplained in (1e-3, "0.001", {"rel": 1e-3}, {"rel": 1e-3, "why": " "}):
        with pytest.raises(LectureError, match="must say why") as err:
            tolerance_of({"tolerance": unexplained}, ("lectures/a.qmd", 3, "x"))
        assert "lectures/a.qmd:3" in str(err.value)
    # A match that needed the tolerance is a warning with old -> new, never silent.
    tol = Tolerance(abs=1e-3, why="m")
    assert within_tolerance([{"stdout": "loss 2597.9\n"}], [{"stdout": "loss 2597.9\n"}], tol) == []
    assert within_tolerance([{"stdout": "loss 0.1234\n"}], [{"stdout": "loss 0.1235\n"}], tol)[-2:] == \
        ["-loss 0.1234", "+loss 0.1235"]
    assert within_tolerance([{"stdout": "loss 0.1\n"}], [{"stdout": "loss 0.2\n"}], tol) == []  # a drift
    # An error's type is never subject to tolerance.
    assert not items_match([{"error": "KeyError", "message": "1"}], [{"error": "IndexError", "message": "1"}],
                           Tolerance(1, 1))


def test_names_assigned_by_a_cell_and_read_by_an_expression():
    code = "import torch as T\nfrom x import a, b as c\nn, m = 1, 2\nmodel.p = 3\nfor i in r: pass\ndef f(): pass\n%time 1"
    assert assigned_names(code) == {"n", "m", "model", "i", "f"}  # imports hold no results
    assert read_names("bn(total) + model.p", "eval") == {"bn", "total", "model"}
    assert read_names("sorted({k for k in keys}) + [f(x) for f in (lambda v: v,)]", "eval") == {"sorted", "keys", "x"}


def test_expectations_file_round_trips_and_keeps_untouched_entries_verbatim(tmp_path):
    path = tmp_path / "demo.yaml"
    store = Expectations(path, "demo")
    tricky = [{"stdout": "  indented first line\n\n"}, {"stdout": "no newline"}, {"result": "209"},
              {"error": "RuntimeError", "message": "Error(s):\n\tMissing key(s)"}, {"stdout": "x\ty\n"}]
    store.write({"a": entry_for(tricky, VERSIONS), "b": entry_for([{"stdout": "b\n"}], VERSIONS)}, set(), ["a", "b"])
    assert Expectations(path, "demo").get("a")["outputs"] == tricky
    # A hand comment in an untouched entry survives a rewrite of the other one.
    text = path.read_text(encoding="utf-8").replace("b:\n", "b:  # checked by hand\n")
    path.write_text(text, encoding="utf-8")
    store = Expectations(path, "demo")
    store.write({"a": entry_for([{"stdout": "new\n"}], VERSIONS), "c": entry_for([], VERSIONS)}, set(),
                ["c", "a", "b"])
    after = path.read_text(encoding="utf-8")
    assert "b:  # checked by hand\n  versions:" in after
    assert list(Expectations(path, "demo").entries) == ["c", "a", "b"]
    assert dump_entry("a", entry_for([{"stdout": "new\n"}], VERSIONS)) in after


def test_every_output_changing_variable_is_in_the_cache_key_and_nothing_else(tmp_path):
    index = tmp_path / "lectures" / "05-key" / "index.qmd"
    index.parent.mkdir(parents=True)
    index.write_text("---\ntitle: k\n---\n\n```{python}\nprint(1)\n```\n", encoding="utf-8")
    lecture = qmd.read_lecture(index)
    plain = {"PATH": "/usr/bin", "HOME": "/root"}

    def key(**env):
        return cache.execution_key(lecture, tmp_path / "code", VERSIONS, {**plain, **env})
    base = key()
    for name, value in [("ATEN_CPU_CAPABILITY", "default"), ("OMP_NUM_THREADS", "2"), ("MKL_CBWR", "AVX2"),
                        ("MKL_NUM_THREADS", "4"), ("OPENBLAS_CORETYPE", "Haswell"), ("ONEDNN_MAX_CPU_ISA", "AVX2"),
                        ("KMP_DETERMINISTIC_REDUCTION", "1"), ("TORCH_NUM_THREADS", "2")]:
        assert key(**{name: value}) != base, name
    assert key(TERM="xterm-256color", EDITOR="vim", SSH_TTY="/dev/pts/0") == base  # pinned or harmless
    assert key(OMP_NUM_THREADS="1", MKL_CBWR="COMPATIBLE") == base  # the defaults, set explicitly
    # The build variant is part of the versions: the same torch for CUDA is another environment.
    assert cache.execution_key(lecture, tmp_path / "code", {**VERSIONS, "torch": "2.13.0+cu128"}, plain) != base
    env = kernelenv.kernel_env({**plain, "OMP_NUM_THREADS": "2", "TERM": "xterm"}, code_dir="/c")
    assert env["OMP_NUM_THREADS"] == "2" and env["TERM"] == "dumb" and env["MKL_CBWR"] == "COMPATIBLE"
    assert env["MKL_NUM_THREADS"] == "2"  # follows: torch sizes its pool from MKL_NUM_THREADS first
    assert kernelenv.kernel_env({**plain, "OMP_NUM_THREADS": "2", "MKL_NUM_THREADS": "3"})["MKL_NUM_THREADS"] == "3"
    assert kernelenv.kernel_env(plain)["MKL_NUM_THREADS"] == kernelenv.kernel_env(plain)["OMP_NUM_THREADS"] == "1"
    assert env["PYTHONPATH"] == "/c" and env["PATH"] == "/usr/bin"


def test_environment_changes_name_what_differs():
    was = {**VERSIONS, "cpu_capability": "AVX512", "env": {"MKL_CBWR": "COMPATIBLE"}}
    now = {**VERSIONS, "torch": "2.15.0+cu132", "cpu_capability": "DEFAULT",
           "env": {"MKL_CBWR": "COMPATIBLE", "ATEN_CPU_CAPABILITY": "default"}}
    assert environment_changes(was, now) == ["torch 2.13.0+cpu → 2.15.0+cu132", "cpu_capability AVX512 → DEFAULT",
                                             "ATEN_CPU_CAPABILITY (unset) → default"]
    assert environment_changes(VERSIONS, now) == ["torch 2.13.0+cpu → 2.15.0+cu132"]  # unrecorded: unknown


def test_compare_table_aligns_bengali_sections_by_display_width():
    from lecturekit.check.envs import Comparison, Row
    comp = Comparison("09-x", "/v/bin/python", VERSIONS, {**VERSIONS, "torch": "2.15.0+cpu"})
    comp.rows = [Row("a", "x.qmd:1", "কিন্তু ক্রম বদলালে", False, "", [], []),
                 Row("b", "x.qmd:9", "float32: শেষ bit-এর ধাপ", True, "1 → 2", [], []),
                 Row("c", "x.qmd:20", "plain ascii", False, "", [], [])]
    lines = compare_table(comp).split("\n")
    rows = [line for line in lines if line[:2] in ("a ", "b ", "c ")]
    # The "differs" column starts at the same terminal column in every row.
    starts = {display_width(line[:line.index(word)]) for line, word in zip(rows, (" no", " yes", " no"))}
    assert len(starts) == 1, rows
    assert display_width("কিন্তু ক্রম") == len("কিন্তু ক্রম") - 3  # virama and vowel signs below take no column
    assert "other (/v/bin/python): python 3.11.7, torch 2.15.0+cpu" in compare_table(comp)


# ---------------------------------------------------------------- end to end: small lectures


BASICS = {
    "_01-basics.qmd": '''
        # মূল কথা {#sec-basics}

        ## দোকানের হিসাব {#sec-shop}

        ```{python}
        #| label: prices
        import time
        from shop import PRICES
        time.sleep(0.5)
        total = sum(PRICES)
        print("মোট দাম:", total)
        ```

        মোট `{python} total` টাকা।

        ## ঠিকানা {#sec-addresses}

        ```{python}
        #| label: noisy
        import tempfile
        print(object())
        print("\\x1b[31mলাল\\x1b[0m")
        print(tempfile.mkdtemp())
        ```

        ```{python}
        quiet = 1
        ```
        ''',
}


def test_expectations_recorded_then_a_changed_value_fails_naming_cell_section_and_line(tmp_path, monkeypatch, capsys):
    proj = make_project(tmp_path, "01-basics", BASICS)
    expected = proj / "tests" / "expected" / "01-basics.yaml"
    section = proj / "lectures" / "01-basics" / "_01-basics.qmd"

    # No expectations yet: a failure that says what to run.
    status, out = run_check(proj, monkeypatch, capsys, "01-basics")
    assert status == 1 and "scripts/check 01-basics --accept" in out and not expected.exists()

    status, out = run_check(proj, monkeypatch, capsys, "01-basics", "--accept")
    assert status == 0, out
    stored = Expectations(expected, "01-basics")
    assert stored.labels() == ["prices", "noisy"]  # the unlabelled cell has no output: no entry needed
    assert stored.get("prices") == {"versions": stored.get("prices")["versions"], "code": stored.get("prices")["code"],
                                    "outputs": [{"stdout": "মোট দাম: 6\n"}]}
    # What the output came from: versions (torch with its build variant), the output-changing
    # environment the kernel ran with, and digests of the cell's code and of what ran before it.
    recorded = stored.get("prices")["versions"]
    assert {"python", "torch", "numpy", "env"} <= set(recorded)
    assert recorded["env"]["MKL_CBWR"] == "COMPATIBLE" and recorded["env"]["OMP_NUM_THREADS"] == "1"
    assert set(stored.get("prices")["code"]) == {"cell", "before"}
    noisy = stored.get("noisy")["outputs"][0]["stdout"]
    assert re.fullmatch(r"<object object at 0x…>\nলাল\n<tmp>\n", noisy), noisy

    # From the cache: a small fraction of the fresh execution, both times printed.
    status, out = run_check(proj, monkeypatch, capsys, "01-basics")
    assert status == 0, out
    cached, fresh = map(float, re.search(r"checked from cache in ([\d.]+) s \(fresh execution took ([\d.]+) s\)",
                                         out).groups())
    print(f"check from cache {cached:.2f} s, fresh execution {fresh:.2f} s")
    assert fresh > 0.5 and cached < fresh / 2

    # A fresh kernel prints another address and another temporary folder: still as expected.
    status, out = run_check(proj, monkeypatch, capsys, "01-basics", "--fresh")
    assert status == 0, out
    assert "executed and checked" in out

    # One stored value changed by hand: the check names the cell, its section, file:line, the prose.
    expected.write_text(expected.read_text(encoding="utf-8").replace("মোট দাম: 6", "মোট দাম: 7"), encoding="utf-8")
    status, out = run_check(proj, monkeypatch, capsys, "01-basics")
    assert status == 1
    assert failing_labels(out) == {"prices"}
    assert "DRIFT  01-basics › দোকানের হিসাব › prices" in out
    assert f"lectures/01-basics/_01-basics.qmd:{fence_line(section, 'prices')}" in out
    assert "-মোট দাম: 7" in out and "+মোট দাম: 6" in out
    # The prose did not change (only the stored output): no sentence is listed.
    assert "prose this changes" not in out and "PROSE" not in out


SHOP_LECTURE = {
    "_01-model.qmd": '''
        # model {#sec-model}

        ## model ছাপা {#sec-print}

        ```{python}
        #| label: model-print
        from shop import Net, Figure, CATEGORIES
        net = Net()
        print(net)
        ```

        ড্রপআউট `{python} net.p`।

        ## ছবি {#sec-figure}

        ```{python}
        #| label: fig-model
        #| fig-cap: "Net"
        Figure(net)
        ```

        ## গোনা {#sec-count}

        ```{python}
        #| label: counts
        print(len(CATEGORIES), "টি ধরন")
        ```

        ```{python}
        #| label: rate
        rate = net.p
        rate
        ```

        হার `{python} rate`; [হার অর্ধেকের কম।]{.claim check="rate < 0.5"}
        ''',
}


def test_course_code_change_fails_exactly_the_changed_cells_and_accept_touches_only_them(
        tmp_path, monkeypatch, capsys):
    proj = make_project(tmp_path, "02-shop", SHOP_LECTURE)
    expected = proj / "tests" / "expected" / "02-shop.yaml"
    status, out = run_check(proj, monkeypatch, capsys, "02-shop", "--accept")
    assert status == 0, out
    before, header = chunks(expected)
    assert 'figure-dot: digraph net { hidden -> drop [label="p=0.1"]; }' in before["fig-model"]

    model = proj / "code" / "shop" / "model.py"
    model.write_text(model.read_text().replace("P_DROP = 0.1", "P_DROP = 0.2"))
    status, out = run_check(proj, monkeypatch, capsys, "02-shop")
    assert status == 1
    assert failing_labels(out) == {"model-print", "fig-model", "rate"}
    assert "-  (drop): Dropout(p=0.1)" in out and "+  (drop): Dropout(p=0.2)" in out
    # The prose the change reaches, as the sentence before and after; the claim still holds.
    section = proj / "lectures" / "02-shop" / "_01-model.qmd"
    line = next(i for i, text in enumerate(section.read_text().split("\n"), 1) if "{python} net.p" in text)
    assert f"_01-model.qmd:{line}  `{{python}} net.p`  0.1 → 0.2" in out
    assert "was: ড্রপআউট 0.1।" in out and "now: ড্রপআউট 0.2।" in out
    assert "`{python} rate`  0.1 → 0.2" in out and "claim “হার অর্ধেকের কম।” check=\"rate < 0.5\" holds" in out
    # Why: the file that changed, named.
    assert "why: the code changed (files: code/shop/model.py)" in out
    assert out.rstrip().endswith("(or scripts/render --accept to accept and render)")
    html = (proj / "_output" / "check-report.html").read_text(encoding="utf-8")
    assert "<del>0.1</del>" in html and "<ins>0.2</ins>" in html and "দোকান" not in html
    assert "hidden -&gt; drop [label=&quot;p=<del>0.1</del>" in html  # the DOT source, escaped
    assert "ড্রপআউট <del>0.1</del>।" in html and "ড্রপআউট <ins>0.2</ins>।" in html  # the sentence, before and after

    # Accept one label: only that output changes; the others still fail, with their old entries.
    status, out = run_check(proj, monkeypatch, capsys, "02-shop", "--accept", "model-print")
    assert status == 1 and failing_labels(out) == {"fig-model", "rate"}
    middle, _ = chunks(expected)
    assert middle["model-print"] != before["model-print"]
    assert {k: middle[k] for k in ("fig-model", "rate")} == {k: before[k] for k in ("fig-model", "rate")}
    assert "why: the code changed (files: code/shop/model.py)" in out  # still named

    status, out = run_check(proj, monkeypatch, capsys, "02-shop", "--accept")
    assert status == 0, out
    assert "accepted 2: fig-model rate" in out
    after, header_after = chunks(expected)
    assert list(after) == list(before) == ["model-print", "fig-model", "counts", "rate"]
    # Every entry rewritten: an unchanged output keeps its text and gets today's digests.
    assert Expectations(expected, "02-shop").get("counts")["outputs"] == \
        [{"stdout": "3 টি ধরন\n"}] and after["counts"] != before["counts"]
    assert Expectations(expected, "02-shop").files["code/shop/model.py"]
    assert "0.2" in after["rate"] and "0.2" in after["fig-model"]

    status, out = run_check(proj, monkeypatch, capsys, "02-shop")
    assert status == 0 and out.startswith("[02-shop] OK: 4 outputs, 2 prose values, 1 claims as recorded; checked from cache")
    assert len(out.strip().split("\n")) == 1, out  # one line when nothing changed

    # An expectation whose cell is gone fails until --accept removes it.
    with expected.open("a", encoding="utf-8") as f:
        f.write("gone:\n  versions: {}\n  outputs:\n  - stdout: |\n      old\n")
    status, out = run_check(proj, monkeypatch, capsys, "02-shop")
    assert status == 1 and failing_labels(out, "STALE") == {"gone"}
    status, out = run_check(proj, monkeypatch, capsys, "--accept", "02-shop")  # a lecture name, not a label
    assert status == 0, out
    assert chunks(expected)[0] == after


RAISING = {
    "_01-load.qmd": '''
        # লোড {#sec-load}

        ## ভুল key {#sec-bad-key}

        ```{python}
        #| label: strict-load
        #| error: true
        from shop import load
        key = "head.weight"
        load(key)
        ```

        ```{python}
        print("লেবেল নেই")
        ```

        [লোড সবসময় সফল।]{.claim check="load(key) == 'loaded'"}
        ''',
}


def test_a_cell_that_used_to_raise_and_no_longer_raises_fails(tmp_path, monkeypatch, capsys):
    proj = make_project(tmp_path, "03-load", RAISING)
    section = proj / "lectures" / "03-load" / "_01-load.qmd"
    status, out = run_check(proj, monkeypatch, capsys, "03-load", "--accept")
    # Unlabelled output and a failing claim cannot be accepted away; the error cell is recorded.
    assert status == 1
    unlabelled_line = next(i for i, line in enumerate(section.read_text().split("\n"), 1)
                           if line.startswith("```{python}") and i > fence_line(section, "strict-load"))
    assert f"lectures/03-load/_01-load.qmd:{unlabelled_line}" in out and "has no label" in out
    claim_line = next(i for i, line in enumerate(section.read_text().split("\n"), 1) if "{.claim" in line)
    assert f"CLAIM  03-load › lectures/03-load/_01-load.qmd:{claim_line}" in out
    assert "“লোড সবসময় সফল।”" in out and "check=\"load(key) == 'loaded'\" raises KeyError" in out
    stored = Expectations(proj / "tests" / "expected" / "03-load.yaml", "03-load")
    assert stored.get("strict-load")["outputs"] == [{"error": "KeyError", "message": "'no such key: head.weight'"}]

    loader = proj / "code" / "shop" / "loader.py"
    loader.write_text(loader.read_text().replace("STRICT = True", "STRICT = False"))
    status, out = run_check(proj, monkeypatch, capsys, "03-load")
    assert status == 1
    assert failing_labels(out, "NO RAISE") == {"strict-load"}
    assert "used to raise KeyError" in out and "now it raises nothing" in out
    assert f"_01-load.qmd:{fence_line(section, 'strict-load')}" in out
    # The claim holds now: no longer a failure, but listed as prose that reads the changed cell.
    assert "CLAIM " not in out and "claim “লোড সবসময় সফল।” check=\"load(key) == 'loaded'\" holds" in out


ENVS = {
    "_01-arrays.qmd": '''
        # array {#sec-arrays}

        ## ভাগফলের তালিকা {#sec-thirds}

        ```{python}
        #| label: np-third
        import numpy as np
        third = np.array([1 / 3, 2 / 3])
        print(third)
        ```

        প্রথমটি `{python} float(third[0])`; স্লাইডে আবার `{python} float(third[0])`।
        [দুটির যোগফল ১]{.claim check="abs(third.sum() - 1) < 1e-12"}

        ```{python}
        #| label: np-ints
        print(np.arange(4))
        ```

        ```{python}
        #| label: np-close
        #| tolerance: {rel: 0.001, abs: 0.001, why: "printed with three digits in the other environment"}
        print(np.array([1 / 7]))
        ```

        ```{python}
        #| label: plain
        print("একই লেখা")
        ```
        ''',
}


def _venv(folder):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    return python, Path(purelib)


def second_environment(folder, print_precision=3, torch_version=None):
    """A venv that reuses this one's packages (a .pth line, no download). `print_precision`: NumPy
    prints arrays with that many digits there; `torch_version`: the version its metadata reports."""
    python, purelib = _venv(folder)
    setup = f"import numpy; numpy.set_printoptions(precision={print_precision})\n" if print_precision else ""
    (purelib / "zz_upgrade.pth").write_text(f"{sysconfig.get_paths()['purelib']}\n{setup}")
    if torch_version:
        info = purelib / f"torch-{torch_version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {torch_version}\n")
    return python


def environment_without_torch(folder):
    """A venv with every package of this one except torch (a folder of links, no copy)."""
    python, purelib = _venv(folder)
    shelf = folder / "shelf"
    shelf.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.lower().startswith(("torch", "functorch", "torchgen")):
            (shelf / entry.name).symlink_to(entry)
    (purelib / "shelf.pth").write_text(f"{shelf}\n")
    return python


def test_upgrade_report_lists_exactly_the_cells_that_differ_between_environments(tmp_path, monkeypatch, capsys):
    proj = make_project(tmp_path, "04-envs", ENVS)
    other = second_environment(tmp_path / "venv-next", torch_version="2.99.0+cpu")
    probe = "import numpy as np; print(np.array([1/3]))"
    assert subprocess.run([str(other), "-c", probe], capture_output=True, text=True).stdout != \
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout
    status, out = run_check(proj, monkeypatch, capsys, "04-envs", "--accept")
    assert status == 0, out

    # The README's relative form, from the project folder.
    status, out = run_check(proj, monkeypatch, capsys, "04-envs", "--compare-python", "../venv-next/bin/python")
    assert status == 1, out
    rows = {line.split()[0]: line.split()[2:] for line in out.split("\n")
            if line.split()[:1] and line.split()[0] in {"np-third", "np-ints", "np-close", "plain"}}
    assert set(rows) == {"np-third", "np-ints", "np-close", "plain"}
    differing = {label for label, rest in rows.items() if "yes" in rest}
    assert differing == {"np-third"}  # np-close differs only within its declared tolerance
    assert rows["np-third"][rows["np-third"].index("yes") + 1] == "drift"  # against tests/expected there
    assert all(rows[k][rows[k].index("no") + 1] == "ok" for k in ("np-ints", "np-close", "plain"))
    assert "0.33333333" in out and "0.333 0.667" in out  # the short diff
    assert "lectures/04-envs/_01-arrays.qmd:5" in out
    assert "1 of 4 cells with output differ; 1 differ from tests/expected under the other environment" in out
    # Each side labelled with its own interpreter's versions, not this process's.
    here = re.search(r"this environment \((.+?)\): python [\d.]+, torch (\S+),", out)
    there = re.search(r"other \((.+?)\): python [\d.]+, torch (\S+),", out)
    assert here.group(1) == sys.executable and here.group(2).rstrip(",") != "2.99.0+cpu"
    assert there.group(1) == str(tmp_path / "venv-next" / "bin" / "python") and there.group(2) == "2.99.0+cpu"
    # Every place the prose reads the differing cell, repeats included, each with its own line.
    section = (proj / "lectures" / "04-envs" / "_01-arrays.qmd").read_text().split("\n")
    inline_line = next(i for i, line in enumerate(section, 1) if "{python} float(third[0])" in line)
    readers = [line for line in out.split("\n") if "`{python} float(third[0])`" in line]
    assert len(readers) == 2 and all(f"_01-arrays.qmd:{inline_line}" in line for line in readers)
    assert any("claim “দুটির যোগফল ১”" in line and "holds" in line for line in out.split("\n"))
    html = (proj / "_output" / "compare-report.html").read_text(encoding="utf-8")
    assert str(tmp_path / "venv-next" / "bin" / "python") in html and sys.executable in html
    assert "NOT AS EXPECTED THERE" in html

    # An environment whose outputs are all the same: 0 differ, and the report still names both.
    same = second_environment(tmp_path / "venv-same", print_precision=None, torch_version="2.98.0+cpu")
    status, out = run_check(proj, monkeypatch, capsys, "04-envs", "--compare-python", str(same))
    assert status == 0, out
    assert "0 of 4 cells with output differ; 0 differ from tests/expected" in out
    html = (proj / "_output" / "compare-report.html").read_text(encoding="utf-8")
    assert str(same) in html and sys.executable in html and "2.98.0+cpu" in html


def test_upgrade_report_refuses_an_interpreter_that_cannot_run_the_lectures(tmp_path, monkeypatch, capsys):
    proj = make_project(tmp_path, "04-envs", ENVS)
    bare, _ = _venv(tmp_path / "bare")
    no_torch = environment_without_torch(tmp_path / "no-torch")
    not_python = tmp_path / "not-python"
    not_python.write_text("#!/bin/sh\necho hello\n")
    not_python.chmod(0o755)
    cases = [("../missing/bin/python", "no such file"), (str(tmp_path / "bare"), "is a directory"),
             (str(not_python), "is not a Python 3 interpreter"),
             (str(bare), "has no ipykernel"), (str(no_torch), "has no torch")]
    for python, says in cases:
        status, out = run_check(proj, monkeypatch, capsys, "04-envs", "--compare-python", python)
        lines = [line for line in out.strip().split("\n") if line]
        assert status == 3 and len(lines) == 1 and says in lines[0] and python in lines[0], (python, out)
    assert not (proj / "_build").exists()  # refused before anything ran


UPGRADE = {
    "_01-upgrade.qmd": """
        # উন্নয়ন {#sec-upgrade}

        ```{python}
        #| label: np-version
        import numpy as np
        print("numpy", np.__version__)
        ```

        ```{python}
        #| label: price
        from shop import PRICES
        print(sum(PRICES))
        ```
        """,
}


def numpy_environment(folder):
    """A real second environment: a venv with this one's packages (a .pth line) and a real NumPy of
    an earlier minor release installed into it (uv; from uv's cache after the first download), which
    comes first on its path."""
    python, purelib = _venv(folder)
    (purelib / "zz_upgrade.pth").write_text(f"{sysconfig.get_paths()['purelib']}\n")
    major, minor = importlib.metadata.version("numpy").split(".")[:2]
    subprocess.run([str(Path(sys.executable).parent / "uv"), "pip", "install", "--quiet", "--no-deps",
                    "--python", str(python), f"numpy<{major}.{minor}"], check=True)
    return python


def _cause_lines(out):
    """label -> the cause of each EXPECTED line of the upgrade report (what changed, in its words)."""
    return {line.split()[1]: line.split("; why: ", 1)[1] for line in out.split("\n")
            if line.startswith("EXPECTED ") and "; why: " in line}


def test_upgrade_report_names_the_package_that_changed_and_only_the_files_that_changed(
        tmp_path, monkeypatch, capsys):
    proj = make_project(tmp_path, "05-upgrade", UPGRADE)
    other = numpy_environment(tmp_path / "venv-np")
    here_numpy = importlib.metadata.version("numpy")
    there_numpy = cache.environment_versions(other)["numpy"]
    assert there_numpy != here_numpy
    status, out = run_check(proj, monkeypatch, capsys, "05-upgrade", "--accept")
    assert status == 0, out
    # A comment in code/ after the accept: a passing check confirms it (the report's baseline).
    loader = proj / "code" / "shop" / "loader.py"
    loader.write_text("# লোডার\n" + loader.read_text())
    status, out = run_check(proj, monkeypatch, capsys, "05-upgrade")
    assert status == 0, out

    # Only NumPy differs: the one differing cell is blamed on it, and on no file.
    status, out = run_check(proj, monkeypatch, capsys, "05-upgrade", "--compare-python", str(other))
    assert status == 1, out
    assert "1 of 2 cells with output differ; 1 differ from tests/expected under the other environment" in out
    causes = _cause_lines(out)
    assert set(causes) == {"np-version"}, out
    assert causes["np-version"].startswith(f"the environment changed (numpy {here_numpy} → {there_numpy}"), out
    assert "code" not in causes["np-version"] and "file" not in causes["np-version"], out
    html = (proj / "_output" / "compare-report.html").read_text(encoding="utf-8")
    assert f"numpy {here_numpy} → {there_numpy}" in html and "files:" not in html and "(removed)" not in html

    # A file of code/ really changed: each cause names it, and only it.
    model = proj / "code" / "shop" / "model.py"
    model.write_text(model.read_text().replace("PRICES = (1, 2, 3)", "PRICES = (1, 2, 4)"))
    status, out = run_check(proj, monkeypatch, capsys, "05-upgrade", "--compare-python", str(other))
    assert status == 1, out
    causes = _cause_lines(out)
    assert set(causes) == {"np-version", "price"}, out
    for label, cause in causes.items():
        assert f"numpy {here_numpy} → {there_numpy}" in cause, (label, out)
        assert cause.endswith("and the code changed (files: code/shop/model.py)"), (label, out)


CAUSES = {
    "_01-causes.qmd": '''
        # কারণ {#sec-causes}

        ```{python}
        #| label: threads
        import os
        print("threads:", os.environ.get("OMP_NUM_THREADS"))
        ```

        ```{python}
        #| label: price
        from shop import PRICES
        print(sum(PRICES))
        ```

        ```{python}
        #| label: clock
        import time
        print(time.time_ns())
        ```
        ''',
}


def test_a_drift_says_whether_the_environment_the_code_or_neither_changed(tmp_path, monkeypatch, capsys):
    proj = make_project(tmp_path, "06-causes", CAUSES)
    status, out = run_check(proj, monkeypatch, capsys, "06-causes", "--accept", "threads", "price")
    assert status == 1 and failing_labels(out, "MISSING") == {"clock"}  # not accepted yet
    status, out = run_check(proj, monkeypatch, capsys, "06-causes", "--accept", "clock")
    assert status == 0, out
    status, out = run_check(proj, monkeypatch, capsys, "06-causes", "--fresh")
    assert failing_labels(out) == {"clock"}
    assert "neither the code nor the environment changed" in out
    html = (proj / "_output" / "check-report.html").read_text(encoding="utf-8")
    assert "neither the code nor the environment changed" in html

    # Another thread count: a new cache entry (no stale answer), and the drift names the variable.
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    model = proj / "code" / "shop" / "model.py"
    model.write_text(model.read_text().replace("PRICES = (1, 2, 3)", "PRICES = (1, 2, 4)"))
    status, out = run_check(proj, monkeypatch, capsys, "06-causes")
    assert "executed and checked" in out
    assert failing_labels(out) == {"threads", "price", "clock"}
    blocks = {b.split("\n")[0].split(" › ")[-1]: b for b in out.split("\n\n") if b.startswith("DRIFT")}
    # One setting changes the threads: MKL_NUM_THREADS follows OMP_NUM_THREADS (torch reads MKL's first).
    assert "the environment changed (MKL_NUM_THREADS 1 → 2; OMP_NUM_THREADS 1 → 2)" in blocks["threads"]
    assert "the code changed (files: code/shop/model.py)" in blocks["price"]
    assert "OMP_NUM_THREADS 1 → 2" in blocks["price"]  # both changed: both named
    monkeypatch.delenv("OMP_NUM_THREADS")
    status, out = run_check(proj, monkeypatch, capsys, "06-causes")
    blocks = {b.split("\n")[0].split(" › ")[-1]: b for b in out.split("\n\n") if b.startswith("DRIFT")}
    assert set(blocks) == {"price", "clock"}
    assert "environment" not in blocks["price"].split("why:")[1].split("\n")[0]
    section = proj / "lectures" / "06-causes" / "_01-causes.qmd"
    section.write_text(section.read_text().replace("print(sum(PRICES))", "print(sum(PRICES) * 1)"))
    status, out = run_check(proj, monkeypatch, capsys, "06-causes")
    where = f"lectures/06-causes/_01-causes.qmd:{fence_line(section, 'price')}"
    assert (f"the code changed (this cell's code ({where}) and files: code/shop/model.py, "
            "lectures/06-causes/_01-causes.qmd)") in out


# ---------------------------------------------------------------- the real lectures


LECTURES = [p.name for p in Project(ROOT).lectures()]


def _fail_once(checked):
    """A drift fails the test with the report, printed once (not also on stdout)."""
    if not checked.expectations.exists:
        pytest.fail(f"no tests/expected/{checked.name}.yaml; if the outputs are right, record them: "
                    f"scripts/check {checked.name} --accept", pytrace=False)
    if checked.failed or checked.warnings:
        pytest.fail(lecture_report(checked), pytrace=False)


@pytest.mark.parametrize("lecture", LECTURES)
def test_real_lecture_outputs_match_their_expectations(lecture):
    """Every real lecture against tests/expected/<lecture>.yaml, from the render cache when valid."""
    _fail_once(check_lecture(Project(ROOT), ROOT / "lectures" / lecture, update=False))


# Kernel choices a reader's machine can make differently from the one that recorded tests/expected.
CPU_SETTINGS = {
    # ATen's portable kernels: no AVX at all (what an old or unknown CPU gets).
    "default": {"ATEN_CPU_CAPABILITY": "default"},
    # Another thread count, by the one documented setting (passive waiting: spinning threads on a
    # busy machine cost minutes).
    "threads2": {"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "PASSIVE"},
}
# Every lecture executes once under both settings at once: one execution per lecture proves it
# independent of either (each reorders the float sums a printed value comes from; both together
# leave a value that depends on one on the recorded digits only if the other undoes it exactly).
# The reference lecture executes under each on its own too, and under AVX2 + OpenBLAS Haswell:
# each factor's own proof, whatever the others do (docs/testing.md, "Time budget").
REFERENCE = "09-nn-module"
BOTH = "default+threads2"


def lecture_settings(lecture):
    """{setting name: environment} a lecture is checked under."""
    if lecture == REFERENCE:
        return dict(CPU_SETTINGS)
    return {BOTH: {**CPU_SETTINGS["default"], **CPU_SETTINGS["threads2"]}}


SETTING_CASES = [(lecture, setting) for lecture in LECTURES for setting in lecture_settings(lecture)]


def _setting_env(setting):
    """This process's environment without output-changing variables, plus a setting's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(kernelenv.OUTPUT_PREFIXES)}
    return {**env, **setting}


def _avx2_setting():
    setting = {"ATEN_CPU_CAPABILITY": "avx2"}
    if "avx2" in inputs.machine()["isa"]:  # forcing AVX2 kernels on a CPU without AVX2 would crash NumPy
        setting["OPENBLAS_CORETYPE"] = "Haswell"
    return setting


_EXECUTE = ("import sys; from pathlib import Path; from lecturekit.project import Project; "
            "from lecturekit.execute.build import execute_lecture; root = Path(sys.argv[1]); "
            "execute_lecture(Project(root), root / 'lectures' / sys.argv[2])")


@pytest.fixture(scope="module")
def setting_executions(request):
    """Every execution the selected kernel-setting tests below check, run first in processes of their
    own with the setting in their environment, one lecture beside the other (a lecture's executions
    take turns: one lecture, one lock), and cached under the setting's own key (the execution key
    holds the setting: a run where nothing changed reads them from the cache). Each test then
    checks its setting's execution, whose record says what it ran under. Each execution's CPU is
    counted as its lecture's in the cost summary."""
    from concurrent.futures import ThreadPoolExecutor
    runs: dict = {}
    for item in request.session.items:
        if "setting_executions" in item.fixturenames:
            params = item.callspec.params if hasattr(item, "callspec") else {}
            lecture = params.get("lecture", REFERENCE)
            setting = lecture_settings(lecture)[params["setting"]] if "setting" in params else _avx2_setting()
            runs.setdefault(lecture, []).append(setting)

    def lane(lecture):
        for setting in runs[lecture]:
            done, cpu = run_measured([sys.executable, "-c", _EXECUTE, str(ROOT), lecture],
                                     env=_setting_env(setting), timeout=1800)
            charge(lecture, cpu)
            assert done.returncode == 0, f"{lecture} under {setting}:\n{done.stderr[-3000:]}"
    with ThreadPoolExecutor(max_workers=2) as pool:  # the longest lane first
        list(pool.map(lane, sorted(runs, key=lambda lecture: -len(runs[lecture]))))


@functools.cache
def _native_capability():
    env = {k: v for k, v in os.environ.items() if not kernelenv.is_output_variable(k)}
    probe = "import torch; print(torch.backends.cpu.get_cpu_capability())"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env,
                          check=True).stdout.strip()


@pytest.mark.parametrize("lecture, setting", SETTING_CASES, ids=[f"{lecture}-{setting}" for lecture, setting in SETTING_CASES])
def test_lecture_outputs_hold_under_other_cpu_kernels_and_thread_counts(lecture, setting, monkeypatch,
                                                                       setting_executions):
    """One execution per lecture and setting (cached under its own key afterwards), checked exactly
    against the same tests/expected as the machine's own kernels."""
    env = dict(lecture_settings(lecture)[setting])
    for name in [k for k in os.environ if k.startswith(kernelenv.OUTPUT_PREFIXES)]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    checked = check_lecture(Project(ROOT), ROOT / "lectures" / lecture, update=False)
    ran = checked.versions
    assert {k: ran["env"].get(k) for k in env} == env  # the kernel really ran with the setting
    if env.get("ATEN_CPU_CAPABILITY") == "default":
        assert ran["cpu_capability"] == "DEFAULT"
        assert _native_capability() != "DEFAULT"  # on any AVX2 machine this is a second capability
    if env.get("OMP_NUM_THREADS") == "2":
        assert ran["torch_threads"] == 2  # torch itself used two threads, not just the variable
    _fail_once(checked)


def test_lecture09_under_avx2_kernels_and_openblas_haswell(monkeypatch, setting_executions):
    """An AMD EPYC's choice: ATen's AVX2 kernels and OpenBLAS's Haswell-family kernels."""
    for name in [k for k in os.environ if k.startswith(kernelenv.OUTPUT_PREFIXES)]:
        monkeypatch.delenv(name)
    for name, value in _avx2_setting().items():
        monkeypatch.setenv(name, value)
    checked = check_lecture(Project(ROOT), ROOT / "lectures" / "09-nn-module", update=False)
    assert checked.versions["env"]["ATEN_CPU_CAPABILITY"] == "avx2"
    _fail_once(checked)


def test_lecture09_plain_check_runs_the_machines_own_kernels(monkeypatch):
    """After the runs above, a plain check still reads its own execution (the cache key holds the
    environment), recorded with this machine's CPU capability."""
    for name in [k for k in os.environ if k.startswith(kernelenv.OUTPUT_PREFIXES)]:
        monkeypatch.delenv(name)
    checked = check_lecture(Project(ROOT), ROOT / "lectures" / "09-nn-module", update=False)
    assert checked.versions["cpu_capability"] == _native_capability()
    assert checked.versions["env"]["MKL_CBWR"] == "COMPATIBLE" and "ATEN_CPU_CAPABILITY" not in checked.versions["env"]
    assert not checked.failed, lecture_report(checked)


def test_a_pure_upgrade_is_reported_as_an_environment_change_only():
    from lecturekit.check.cause import changed_files, explain
    digests = {"cell": "c1", "before": "b1"}
    entry = {"versions": {"torch": "2.13.0+cpu", "torch_threads": 1, "cpu_capability": "AVX512"}, "code": digests}
    now = {"torch": "2.15.0+cu132", "torch_threads": 1, "cpu_capability": "AVX512"}
    files = changed_files({"code/a.py": "1", "lectures/x/_01.qmd": "2"}, {"code/a.py": "1", "lectures/x/_01.qmd": "2"})
    assert files == []
    assert explain(entry, digests, now, files) == "why: the environment changed (torch 2.13.0+cpu → 2.15.0+cu132)"
    # The same with a course file edited: the file is named, beside the environment.
    files = changed_files({"code/a.py": "1"}, {"code/a.py": "9", "code/b.py": "3"})
    assert files == ["code/a.py", "code/b.py (new)"]
    assert explain(entry, {"cell": "c1", "before": "b2"}, now, files) == (
        "why: the environment changed (torch 2.13.0+cpu → 2.15.0+cu132), and the code changed "
        "(files: code/a.py, code/b.py (new))")
