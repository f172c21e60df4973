"""scripts/check: outputs against tests/expected, claims, --accept, the upgrade report.

Small lectures in a temporary project (its own _quarto.yml, lectures/ and a tiny `shop` package in
code/) keep each kernel start cheap; the last test checks the real lectures from the render cache.
"""
from __future__ import annotations

import re
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

from lecturekit.check.__main__ import main  # noqa: E402
from lecturekit.check.compare import Tolerance, items_match, texts_match, tolerance_of  # noqa: E402
from lecturekit.check.expectations import Expectations, dump_entry, entry_for  # noqa: E402
from lecturekit.check.normalise import normalise, output_items  # noqa: E402
from lecturekit.check.readers import assigned_names, read_names  # noqa: E402
from lecturekit.check.report import lecture_report  # noqa: E402
from lecturekit.check.run import check_lecture  # noqa: E402
from lecturekit.errors import LectureError  # noqa: E402
from lecturekit.project import Project  # noqa: E402
from lecturekit.scaffold import ProjectBuilder  # noqa: E402

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
    assert texts_match("tensor([1.0000, 2.5000])", "tensor([1.00001, 2.5])", tolerance_of({"tolerance": 1e-4}))
    assert not texts_match("loss 0.1", "gain 0.1", Tolerance(1, 1))  # text between numbers stays exact
    assert texts_match("মোট ২০৯", "মোট 209.0", Tolerance(abs=1e-9))  # Bengali digits are numbers
    assert tolerance_of({"tolerance": {"rel": 1e-5}}) == Tolerance(rel=1e-5, abs=0.0)
    with pytest.raises(LectureError, match="rel and abs"):
        tolerance_of({"tolerance": {"relative": 1}}, ("a.qmd", 3, "x"))
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
    assert stored.get("prices") == {"versions": stored.get("prices")["versions"],
                                    "outputs": [{"stdout": "মোট দাম: 6\n"}]}
    assert set(stored.get("prices")["versions"]) == {"python", "torch", "numpy"}
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
    inline_line = next(i for i, line in enumerate(section.read_text().split("\n"), 1) if "{python} total" in line)
    assert f"_01-basics.qmd:{inline_line}  `{{python}} total` now reads '6'" in out


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
    # The prose that reads what the drifted cells assigned; the claim still holds.
    assert "`{python} net.p` now reads '0.2'" in out
    assert "`{python} rate` now reads '0.2'" in out and "claim “হার অর্ধেকের কম।” check=\"rate < 0.5\" holds" in out
    html = (proj / "_output" / "check-report.html").read_text(encoding="utf-8")
    assert "<del>0.1</del>" in html and "<ins>0.2</ins>" in html and "দোকান" not in html
    assert "hidden -&gt; drop [label=&quot;p=<del>0.1</del>" in html  # the DOT source, escaped

    # Accept one label: only that entry changes, the others still fail.
    status, out = run_check(proj, monkeypatch, capsys, "02-shop", "--accept", "model-print")
    assert status == 1 and failing_labels(out) == {"fig-model", "rate"}
    middle, _ = chunks(expected)
    assert middle["model-print"] != before["model-print"]
    assert {k: middle[k] for k in ("fig-model", "counts", "rate")} == \
        {k: before[k] for k in ("fig-model", "counts", "rate")}

    status, out = run_check(proj, monkeypatch, capsys, "02-shop", "--accept")
    assert status == 0, out
    assert "accepted 2: fig-model rate" in out
    after, header_after = chunks(expected)
    assert list(after) == list(before) == ["model-print", "fig-model", "counts", "rate"]
    assert header_after == header and after["counts"] == before["counts"]  # untouched, byte for byte
    assert "0.2" in after["rate"] and "0.2" in after["fig-model"]

    status, out = run_check(proj, monkeypatch, capsys, "02-shop")
    assert status == 0 and "checked from cache" in out

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

        ```{python}
        #| label: np-third
        import numpy as np
        print(np.array([1 / 3, 2 / 3]))
        ```

        ```{python}
        #| label: np-ints
        print(np.arange(4))
        ```

        ```{python}
        #| label: np-close
        #| tolerance: 0.001
        print(np.array([1 / 7]))
        ```

        ```{python}
        #| label: plain
        print("একই লেখা")
        ```
        ''',
}


def second_environment(folder):
    """A venv that reuses this one's packages but prints NumPy arrays with 3 digits."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "zz_upgrade.pth").write_text(
        f"{sysconfig.get_paths()['purelib']}\nimport numpy; numpy.set_printoptions(precision=3)\n")
    return python


def test_upgrade_report_lists_exactly_the_cells_that_differ_between_environments(tmp_path, monkeypatch, capsys):
    proj = make_project(tmp_path, "04-envs", ENVS)
    other = second_environment(tmp_path / "venv-next")
    probe = "import numpy as np; print(np.array([1/3]))"
    assert subprocess.run([str(other), "-c", probe], capture_output=True, text=True).stdout != \
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout

    status, out = run_check(proj, monkeypatch, capsys, "04-envs", "--compare-python", str(other))
    assert status == 1, out
    rows = {line.split()[0]: line.split()[2:] for line in out.split("\n")
            if line.split()[:1] and line.split()[0] in {"np-third", "np-ints", "np-close", "plain"}}
    assert set(rows) == {"np-third", "np-ints", "np-close", "plain"}
    differing = {label for label, rest in rows.items() if "yes" in rest}
    assert differing == {"np-third"}  # np-close differs only within its declared tolerance
    assert "0.33333333" in out and "0.333 0.667" in out  # the short diff
    assert "lectures/04-envs/_01-arrays.qmd:3" in out
    assert "1 of 4 cells with output differ" in out
    assert (proj / "_output" / "compare-report.html").exists()


# ---------------------------------------------------------------- the real lectures


@pytest.mark.parametrize("lecture", [p.name for p in Project(ROOT).lectures()])
def test_real_lecture_outputs_match_their_expectations(lecture):
    """Every real lecture against tests/expected/<lecture>.yaml, from the render cache when valid."""
    checked = check_lecture(Project(ROOT), ROOT / "lectures" / lecture)
    report = lecture_report(checked)
    print(report)
    if not checked.expectations.exists:
        pytest.fail(f"no tests/expected/{lecture}.yaml; if the outputs are right, record them: "
                    f"scripts/check {lecture} --accept", pytrace=False)
    if checked.failed:
        pytest.fail(report, pytrace=False)
