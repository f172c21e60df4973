"""Plots: matplotlib figures from cells in both products, Bengali shaped, figures/<lecture>/, and
checks that compare what a plot shows (its data), never its pixels."""
from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from PIL import Image

from helpers import ROOT, pdf_text
from lecturekit.cli import pins
from lecturekit.cli.check import main as check_main
from lecturekit.check.plots import plot_text

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import courseplot  # noqa: E402
from courseplot.kernel import figure_bytes  # noqa: E402

PLOTS = """
# ছবির অংশ {#sec-plots}

## ক্ষতির রেখা {#sec-curve}

```{python}
#| label: fig-curve
#| fig-cap: "প্রশিক্ষণে ক্ষতি কমে"
#| fig-alt: "একটি রেখা যা চার থেকে নেমে এক দশমিক দুইয়ে থামে"
#| fig-width: 6
#| fig-height: 3
import matplotlib.pyplot as plt
losses = [4.0, 2.5, 1.5, 1.2]
plt.plot(range(len(losses)), losses, label="প্রশিক্ষণ ক্ষতি")
plt.title("ক্ষতি কমছে: স্তর ক্ষেত্র")
plt.xlabel("ইপক")
plt.legend()
plt.show()
```

@fig-curve দেখায় শেষ ক্ষতি `{python} losses[-1]`।

## দুটি ছবি এক cell-এ {#sec-two}

```{python}
#| label: two-figures
fig, ax = plt.subplots()
ax.bar(["চাল", "ডাল"], [3, 5])
fig2, ax2 = plt.subplots()
ax2.scatter([1, 2], [2, 1]);
```

## ফলাফল হিসেবে ছবি {#sec-result}

```{python}
fig, ax = plt.subplots()
ax.hist([1, 2, 2, 3, 3, 3], bins=3)
fig
```

```{python}
fig, ax = plt.subplots()
ax.plot([0, 1], [1, 0])
ax.text(0.5, 0.5, "মাঝখান")
plt.show()
```
"""


# The check wants a label on every cell with output.
CHECKED = PLOTS.split("## ফলাফল")[0]


def mini_with_courseplot(mini):
    shutil.copytree(ROOT / "code" / "courseplot", mini.root / "code" / "courseplot")
    return mini


def figures_dir(mini):
    return mini.root / "figures" / "demo"


# ---------------------------------------------------------------- the wheel shapes Bengali


def ink_width(png: bytes) -> int:
    """Columns holding any dark pixel."""
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("L"))
    return int((pixels < 128).any(axis=0).sum())


def text_png(text, fmt="png"):
    courseplot.use_style()
    fig = plt.figure(figsize=(3, 1))
    fig.text(0.05, 0.3, text, fontsize=40)
    data = figure_bytes(fig, fmt)
    plt.close(fig)
    if fmt == "pdf":  # the handout's rendering: rasterise the PDF as a reader's viewer would
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "t.pdf").write_bytes(data)
            subprocess.run(["pdftoppm", "-png", "-r", "100", "-singlefile", f"{tmp}/t.pdf", f"{tmp}/t"], check=True)
            data = (Path(tmp) / "t.png").read_bytes()
    return data


@pytest.mark.parametrize("fmt", ["png", "pdf"])
def test_the_pinned_wheel_shapes_bengali_conjuncts(fmt):
    # What is proven is the pinned wheel's shaping: the installed matplotlib must be the pin.
    pinned = pins.pins()["matplotlib"][1]
    assert matplotlib.__version__ == pinned, f"matplotlib {matplotlib.__version__} installed, {pinned} pinned"
    # Shaped, ক্ষ is one conjunct glyph and ন্ত্র one stacked cluster; with ZWNJ they must stay
    # separate glyphs side by side. Unshaped, both strings would draw the same code points alike.
    for cluster in ("ক্ষ", "ন্ত্র"):
        shaped = ink_width(text_png(cluster, fmt))
        spelled_out = ink_width(text_png(cluster.replace("\u09cd", "\u09cd\u200c"), fmt))
        assert shaped < 0.8 * spelled_out, (cluster, shaped, spelled_out)


def test_latin_and_bengali_in_one_label_use_both_fonts():
    # Debian's Noto Sans Bengali has no Latin letters: without the fallback to Noto Sans, "loss"
    # would draw as empty boxes (and matplotlib would warn about missing glyphs).
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ink_width(text_png("loss")) > 40
        assert ink_width(text_png("ক্ষতি loss")) > ink_width(text_png("ক্ষতি"))


# ---------------------------------------------------------------- the plot data


def test_plot_data_holds_lines_bars_points_bins_texts_and_limits():
    courseplot.use_style()
    fig, (a, b) = plt.subplots(1, 2)
    a.plot([0, 1, 2], [0.5, 0.25, 0.125], label="ক্ষতি")
    a.scatter([1, 2], [3, 4], label="বিন্দু")
    a.set(title="শিরোনাম", xlabel="x-অক্ষ", ylabel="y-অক্ষ", xlim=(0, 3), ylim=(0, 5))
    a.text(1, 1, "লেখা")
    a.legend()
    b.hist([1, 2, 2, 3], bins=[0, 2, 4])
    fig.suptitle("দুটি ছবি")
    data = courseplot.plot_data(fig)
    plt.close(fig)
    left, right = data["axes"]
    assert data["suptitle"] == "দুটি ছবি"
    assert left["title"] == "শিরোনাম" and left["xlim"] == [0, 3] and left["ylim"] == [0, 5]
    line, points = left["series"]
    assert line == {"kind": "line", "label": "ক্ষতি", "x": [0, 1, 2], "y": [0.5, 0.25, 0.125]}
    assert points["x"] == [1, 2] and points["y"] == [3, 4]
    assert left["texts"] == [{"text": "লেখা", "xy": [1, 1]}] and left["legend"] == ["ক্ষতি", "বিন্দু"]
    bins = right["series"][0]
    assert bins["kind"] == "bars" and bins["x"] == [0, 2] and bins["width"] == [2, 2] and bins["height"] == [1, 3]
    text = plot_text(data)
    assert "axes 1 line 'ক্ষতি' y[0:3]: 0.5 0.25 0.125" in text
    assert "axes 2 bars 'bars 1' height[0:2]: 1 3" in text


# ---------------------------------------------------------------- both products and figures/


def test_plots_reach_both_products_and_figures_folder(mini, browser):
    mini = mini_with_courseplot(mini)
    mini.write(PLOTS)
    result = mini.render()
    assert result.returncode == 0, result.stderr
    folder = figures_dir(mini)
    names = sorted(p.name for p in folder.iterdir())
    # Named from the label (a second figure of a cell gets -2); unlabelled cells from their file and
    # place, so the two unlabelled figure cells never share a file.
    assert names == [".generated", "fig-curve.pdf", "fig-curve.svg", "index-cell3.pdf", "index-cell3.svg",
                     "index-cell4.pdf", "index-cell4.svg", "two-figures-2.pdf", "two-figures-2.svg",
                     "two-figures.pdf", "two-figures.svg"]
    assert (folder / "index-cell3.svg").read_bytes() != (folder / "index-cell4.svg").read_bytes()
    # A figure that is the cell's result shows once, not again when the backend flushes the cell.
    assert not (folder / "index-cell3-2.svg").exists()
    # fig-width / fig-height in inches (72 pt): the 6 × 3 figure, trimmed to its content.
    width, height = (float(v) for v in re.search(r'width="([\d.]+)pt" height="([\d.]+)pt"',
                                                 (folder / "fig-curve.svg").read_text()).groups())
    assert 5 * 72 < width <= 6.2 * 72 and 2.4 * 72 < height <= 3.2 * 72
    default_width = float(re.search(r'width="([\d.]+)pt"', (folder / "index-cell3.svg").read_text()).group(1))
    assert default_width > 8 * 72

    # Slides: the SVG, sharp at any zoom, with the alt text and the Bengali caption.
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(mini.slides.as_uri() + "#/sec-curve")
    page.wait_for_function("document.querySelector('.reveal .slides section.present img') !== null")
    img = page.locator(".reveal .slides section.present img").first
    assert img.get_attribute("alt") == "একটি রেখা যা চার থেকে নেমে এক দশমিক দুইয়ে থামে"
    assert img.get_attribute("src").startswith("data:image/svg+xml")
    assert img.evaluate("i => i.complete && i.naturalWidth > 300")
    assert "প্রশিক্ষণে ক্ষতি কমে" in page.inner_text(".reveal .slides section.present")
    shot = Path(__file__).parent / "artifacts" / "plot-slide.png"
    shot.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(shot))
    page.close()

    # Handout: the PDF figure (vector; its Bengali text is the figure's own), numbered and referenced.
    text = pdf_text(mini.handout)
    assert "ছবি ১.১ — প্রশিক্ষণে ক্ষতি কমে" in text and "ছবি ১.১ দেখায় শেষ ক্ষতি 1.2" in text
    assert "ইপক" in text  # the axis label, text inside the embedded PDF figure
    fonts = subprocess.run(["pdffonts", str(mini.handout)], capture_output=True, text=True).stdout
    assert "NotoSansBengali" in fonts

    # Re-rendering from scratch writes no figure: same bytes, files untouched.
    stamps = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in folder.iterdir()}
    again = mini.render("--fresh", "--force")
    assert again.returncode == 0, again.stderr
    assert {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in folder.iterdir()} == stamps


def test_gone_figures_are_removed_and_hand_drawn_ones_kept(mini):
    mini = mini_with_courseplot(mini)
    folder = figures_dir(mini)
    folder.mkdir(parents=True)
    courseplot.use_style()
    # A hand-drawn figure in both formats, referenced by path without extension: the slides take
    # the SVG, the handout the PDF.
    fig = plt.figure(figsize=(2, 1))
    fig.text(0.1, 0.4, "হাতে আঁকা")
    (folder / "drawn.svg").write_bytes(figure_bytes(fig, "svg"))
    (folder / "drawn.pdf").write_bytes(figure_bytes(fig, "pdf"))
    plt.close(fig)
    body = PLOTS + '\n## আঁকা ছবি {#sec-drawn}\n\n![হাতে আঁকা ছবি](../../figures/demo/drawn){fig-alt="একটি আঁকা ছবি"}\n'
    mini.write(body)
    assert mini.render().returncode == 0
    assert 'alt="একটি আঁকা ছবি"' in mini.slides.read_text(encoding="utf-8")
    assert "হাতে আঁকা ছবি" in pdf_text(mini.handout)
    typ = (mini.root / "_build" / "demo" / "demo.typ").read_text(encoding="utf-8")
    assert "drawn.pdf" in typ and "drawn.svg" not in typ
    # Redrawing it by hand re-renders the products (the figure is one of their inputs).
    fig = plt.figure(figsize=(2, 1))
    fig.text(0.1, 0.4, "redrawn")
    (folder / "drawn.pdf").write_bytes(figure_bytes(fig, "pdf"))
    plt.close(fig)
    again = mini.render()
    assert again.returncode == 0 and "typst:" in again.stderr, again.stderr
    assert "redrawn" in pdf_text(mini.handout)  # Latin: matplotlib PDF text repeats some Bengali clusters when copied
    mini.write(body.replace("#| label: two-figures", "#| label: pair"))
    assert mini.render().returncode == 0
    names = {p.name for p in folder.iterdir()}
    assert {"pair.svg", "pair-2.svg", "drawn.svg", "drawn.pdf"} <= names
    assert not {"two-figures.svg", "two-figures-2.pdf"} & names


# ---------------------------------------------------------------- checked by data


def run_check(root, monkeypatch, capsys, *argv):
    monkeypatch.chdir(root)
    status = check_main(["--quiet", *argv])
    out = capsys.readouterr()
    return status, out.out + out.err


def test_a_changed_plotted_number_fails_the_check_and_a_style_change_does_not(mini, monkeypatch, capsys):
    mini = mini_with_courseplot(mini)
    mini.write(CHECKED)
    status, out = run_check(mini.root, monkeypatch, capsys, "demo", "--accept")
    assert status == 0, out
    expected = (mini.root / "tests" / "expected" / "demo.yaml").read_text(encoding="utf-8")
    assert "figure-data" in expected and "axes 1 line 'প্রশিক্ষণ ক্ষতি' y[0:4]: 4 2.5 1.5 1.2" in expected
    assert "<svg" not in expected and "%PDF" not in expected

    # Looks change (font size, line width, colours, no anti-aliasing): the data is the same.
    styled = CHECKED.replace('plt.title("ক্ষতি কমছে: স্তর ক্ষেত্র")',
                           'plt.rcParams.update({"lines.antialiased": False, "font.size": 9, "text.antialiased": False})\n'
                           'plt.title("ক্ষতি কমছে: স্তর ক্ষেত্র", fontsize=30, color="red")')
    mini.write(styled.replace('label="প্রশিক্ষণ ক্ষতি")', 'label="প্রশিক্ষণ ক্ষতি", linewidth=9, color="green")'))
    status, out = run_check(mini.root, monkeypatch, capsys, "demo")
    assert status == 0, out

    # One plotted number changes: the check fails, naming the cell and the series.
    mini.write(CHECKED.replace("losses = [4.0, 2.5, 1.5, 1.2]", "losses = [4.0, 2.5, 1.4, 1.2]"))
    status, out = run_check(mini.root, monkeypatch, capsys, "demo")
    assert status == 1
    assert "DRIFT" in out and "fig-curve" in out
    assert "plotted data changed: figure 1 axes 1 line 'প্রশিক্ষণ ক্ষতি' y" in out
    assert "-axes 1 line 'প্রশিক্ষণ ক্ষতি' y[0:4]: 4 2.5 1.5 1.2" in out

    # Within the cell's declared (and explained) tolerance, a small change passes, as a warning old → new.
    tolerant = CHECKED.replace("#| fig-height: 3", '#| fig-height: 3\n#| tolerance: {rel: 0.01, why: "measured"}')
    # (not the last value: the prose prints that one, and a sentence is compared exactly)
    mini.write(tolerant.replace("losses = [4.0, 2.5, 1.5, 1.2]", "losses = [4.0, 2.501, 1.5, 1.2]"))
    status, out = run_check(mini.root, monkeypatch, capsys, "demo")
    assert status == 0, out
    assert "changed within its tolerance" in out and "+axes 1 line 'প্রশিক্ষণ ক্ষতি' y[0:4]: 4 2.501 1.5 1.2" in out


# ---------------------------------------------------------------- names, laziness, lecture 09


def test_figure_names_never_collide():
    import nbformat

    from lecturekit.errors import LectureError
    from lecturekit.write.figures import cell_figures

    def cell(file, label=None, figures=1):
        c = nbformat.v4.new_code_cell("")
        c.metadata["lecture"] = {"file": file, "line": 1, "label": label}
        c.outputs = [nbformat.v4.new_output("display_data", data={"image/svg+xml": "<svg/>"})
                     for _ in range(figures)]
        return c

    nb = nbformat.v4.new_notebook(cells=[cell("lectures/x/_01-a.qmd"), cell("lectures/x/_01-a.qmd", figures=2),
                                         cell("lectures/x/_02-b.qmd"), cell("lectures/x/_02-b.qmd", "fig-y", 2)])
    names = [f.name for figures in cell_figures(nb) for f in figures]
    assert names == ["01-a-cell1", "01-a-cell2", "01-a-cell2-2", "02-b-cell1", "fig-y", "fig-y-2"]
    clash = nbformat.v4.new_notebook(cells=[cell("lectures/x/_01-a.qmd"), cell("lectures/x/_02-b.qmd", "01-a-cell1")])
    with pytest.raises(LectureError, match="01-a-cell1"):
        cell_figures(clash)


def test_kernel_setup_imports_no_matplotlib():
    # A lecture that draws nothing must not pay matplotlib's import time.
    code = ("import sys, courseplot; courseplot.setup_kernel(); "
            "print('matplotlib' in sys.modules, 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": str(ROOT / "code")},
                         capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_lecture09_shows_its_plots_in_both_products(rendered):
    folder = ROOT / "figures" / "09-nn-module"
    listed = (folder / ".generated").read_text(encoding="utf-8").split()
    for name in ("fig-s07-loss-curve", "fig-s09-dropout-means", "fig-s01-module-tree"):
        assert {f"{name}.svg", f"{name}.pdf"} <= set(listed)
    # The committed figures are what the render writes: no changed file after rendering.
    status = subprocess.run(["git", "status", "--porcelain", "--", str(folder)], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    assert status == ""
    slides = (rendered / "09-nn-module" / "slides.html").read_text(encoding="utf-8")
    for alt in ("অনুভূমিক অক্ষে epoch, প্রথম থেকে শেষ", "চারটি অনুভূমিক বার"):
        assert re.search(r'<img[^>]*src="data:image/svg\+xml[^"]*"[^>]*alt="' + alt, slides) or \
            re.search(r'<img[^>]*alt="' + alt + r'[^"]*"[^>]*src="data:image/svg\+xml', slides), alt
    text = pdf_text(rendered / "09-nn-module" / "handout.pdf")
    assert re.search(r"ছবি ৯\.\d — training loss, লগ স্কেলে", text)
    assert re.search(r"ছবি ৯\.\d — একই batch-এর গড়", text)


# ---------------------------------------------------------------- greyscale and numerals

from helpers import LECTURES  # noqa: E402
from courseplot.mime import STYLE_MIME  # noqa: E402

# Two fills a greyscale copy still tells apart (0 black, 1 white).
GREY_STEP = 0.25


def series_key(series):
    """What survives a greyscale copy of a series, its colour aside."""
    if series["kind"] == "bars":
        return ("bars", series["hatch"])
    return (series["kind"].replace("reference ", ""), series.get("dashes", "none"), series["marker"], series["hollow"])


def look_alike(axes):
    """Pairs of series in one axes that a greyscale copy shows the same way."""
    shown = [s for s in axes["series"] if s["kind"] != "reference line" or not s["label"].startswith("line ")]
    pairs = []
    for i, a in enumerate(shown):
        for b in shown[i + 1:]:
            if series_key(a) != series_key(b):
                continue
            greys_a, greys_b = a.get("greys", [a.get("grey")]), b.get("greys", [b.get("grey")])
            if abs(sum(greys_a) / len(greys_a) - sum(greys_b) / len(greys_b)) >= GREY_STEP:
                continue
            pairs.append((a["label"], b["label"]))
    return pairs


def executed_figures(lecture):
    import nbformat

    nb = nbformat.read(ROOT / "_build" / lecture.name / f"{lecture.name}.ipynb", as_version=4)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if STYLE_MIME in out.get("data", {}):
                yield cell.metadata.get("lecture", {}).get("label") or cell.source[:40], out["data"][STYLE_MIME]


def matplotlib_pdfs(lecture):
    """The lecture's plots among its figures: the PDFs Matplotlib made (a lecture may have none)."""
    return [pdf for pdf in sorted((ROOT / "figures" / lecture.name).glob("*.pdf"))
            if "Matplotlib" in subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True).stdout]


@pytest.mark.parametrize("lecture", LECTURES, ids=str)
def test_every_plot_reads_in_greyscale(rendered, lecture):
    """Each plot's series, as drawn (dashes, markers, hollow or filled, grey level), differ in a
    greyscale copy: colour alone never carries a series. Every plot of figures/<lecture>/ has its
    drawn style in the notebook, so none goes unchecked."""
    figures = list(executed_figures(lecture))
    assert len(figures) == len(matplotlib_pdfs(lecture)), "a plot without its drawn style"
    alike = {label: pairs for label, style in figures for axes in style["axes"] if (pairs := look_alike(axes))}
    assert not alike, f"series a greyscale copy cannot tell apart: {alike}"


def test_the_course_style_separates_lines_colour_alone_would_not(tmp_path):
    """Three lines of one dash pattern, told apart by colour only: the check sees them alike, and
    the course style's finishing gives them markers (the check is the test's own mutation)."""
    courseplot.use_style()
    fig, ax = plt.subplots()
    for k, colour in enumerate(["#2c6fbb", "#b25500", "#2e7d32"]):
        ax.plot(range(40), [k + i / 40 for i in range(40)], color=colour, ls="-", label=f"s{k}")
    before = look_alike(courseplot.plot_style(fig)["axes"][0])
    assert len(before) == 3, before
    courseplot.finish(fig)
    assert look_alike(courseplot.plot_style(fig)["axes"][0]) == []
    markers = [line.get_marker() for line in ax.get_lines()]
    assert len(set(markers)) == 3 and all(line.get_markevery() for line in ax.get_lines()[1:]), markers
    # Finishing twice (each draw finishes) changes nothing more.
    courseplot.finish(fig)
    assert [line.get_marker() for line in ax.get_lines()] == markers
    # The default cycle alone already separates lines that set nothing but their colour.
    fig2, ax2 = plt.subplots()
    for colour in ["#2c6fbb", "#b25500", "#2e7d32"]:
        ax2.plot([0, 1], [0, 1], color=colour)
    assert look_alike(courseplot.plot_style(fig2)["axes"][0]) == []
    plt.close("all")


def test_one_set_of_numerals_and_no_exponents():
    """A figure that writes a Bengali digit anywhere gets Bengali tick labels; a log axis labels
    its ticks as plain numbers (no small exponents); the plot's data is unchanged."""
    courseplot.use_style()
    fig, ax = plt.subplots()
    bars = ax.barh(["ক", "খ"], [0.5, 1.25])
    ax.bar_label(bars, labels=["০.৫", "১.২৫"])
    before = courseplot.plot_data(fig)
    fig.canvas.draw()
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert all(re.search("[০-৯]", t) and not re.search("[0-9]", t) for t in ticks if t), ticks
    assert courseplot.plot_data(fig) == before
    fig2, ax2 = plt.subplots()
    ax2.set_yscale("log")
    ax2.plot([1, 2, 3], [2, 300, 40000])
    fig2.canvas.draw()
    labels = [t.get_text() for t in ax2.get_yticklabels() if t.get_text()]
    assert labels and not any("^" in t or "$" in t for t in labels), labels
    assert "10,000" in labels and all(not re.search("[০-৯]", t) for t in labels), labels
    plt.close("all")


@pytest.mark.parametrize("lecture", LECTURES, ids=str)
def test_each_lectures_plots_use_one_set_of_numerals(rendered, lecture):
    for pdf in matplotlib_pdfs(lecture):
        text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
        scripts = {name for name, digits in (("Latin", "[0-9]"), ("Bengali", "[০-৯]")) if re.search(digits, text)}
        assert len(scripts) <= 1, f"{pdf.name} mixes Latin and Bengali digits: {text.split()}"
