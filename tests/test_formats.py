"""The format records (formats.py) and the pandoc arguments the write stage builds from them.
Fast: no kernel, no pandoc run; a throwaway project and a lecture read from it."""
import os
from types import SimpleNamespace

import nbformat
import pytest

from lecturekit.execute.record import Execution
from lecturekit.read import qmd
from lecturekit.write.emit import MarkdownEmitter
from lecturekit.errors import LectureError
from lecturekit.write.figures import FIGURE_MIMES
from lecturekit.write.formats import (FORMATS, HTML, REVEALJS, TYPST, Format, arg, check_format_options, format_args, ignored,
                                js_var, meta, option_args, paths, switch, var)
from lecturekit.project import Project
from lecturekit.write.writers import LectureWriter

from helpers import ROOT, add_format_schema


# ---- the records ------------------------------------------------------------------------------------

def test_the_table_is_keyed_by_each_records_name():
    assert list(FORMATS) == ["html", "revealjs", "typst"]  # the course page links them in this order
    assert all(FORMATS[name].name == name for name in FORMATS)


def test_products_and_links_are_distinct_per_format():
    formats = list(FORMATS.values())
    assert len({f.product for f in formats}) == len(formats)
    assert len({f.link_label for f in formats}) == len(formats)
    assert all(f.link_label.strip() for f in formats)
    assert (HTML.product, REVEALJS.product, TYPST.product) == ("index.html", "slides.html", "handout.pdf")


def test_figure_preferences():
    for fmt in FORMATS.values():
        assert set(fmt.figure_mimes) <= set(FIGURE_MIMES), fmt
    assert REVEALJS.figure_mimes[0] == "image/svg+xml"  # sharp on a projector
    assert HTML.figure_mimes[0] == "image/svg+xml"  # sharp at any zoom on a phone
    assert TYPST.figure_mimes[0] == "application/pdf"  # Typst mangles Bengali inside SVG


def test_finishing_steps():
    assert REVEALJS.finish.name == "policy" and REVEALJS.finish.packages == ()  # its Content-Security-Policy
    assert TYPST.finish.name == "typst" and TYPST.finish.suffix == ".typ"
    assert TYPST.finish.packages == ("typst", "pikepdf")  # their versions are inputs of every product


def test_records_are_frozen():
    with pytest.raises(AttributeError):
        REVEALJS.product = "deck.html"
    with pytest.raises(TypeError):
        REVEALJS.options["theme"] = ignored
    assert FORMATS["revealjs"] is REVEALJS and REVEALJS != TYPST


def test_every_option_of_the_projects_quarto_yml_is_known():
    config = Project(ROOT).config["format"]
    for name, options in config.items():
        assert set(options) <= set(FORMATS[name].options), name


# ---- option converters ------------------------------------------------------------------------------

def test_option_converters(tmp_path):
    assert var("width")(1280, tmp_path) == ["-V", "width=1280"]
    assert var("hash")(True, tmp_path) == ["-V", "hash=true"]
    # reveal.js writes slideNumber as bare JavaScript: a string keeps its quotes, a bool does not.
    assert js_var("slideNumber")("c/t", tmp_path) == ["-V", 'slideNumber="c/t"']
    assert js_var("slideNumber")(False, tmp_path) == ["-V", "slideNumber=false"]
    assert meta("toc-title")("সূচিপত্র", tmp_path) == ["-M", "toc-title=সূচিপত্র"]
    assert arg("--toc-depth")(2, tmp_path) == ["--toc-depth", "2"]
    assert switch("--toc")(True, tmp_path) == ["--toc"] and switch("--toc")(False, tmp_path) == []
    assert paths("--css")(["a.css", "b/c.css"], tmp_path) == ["--css", str(tmp_path / "a.css"),
                                                              "--css", str(tmp_path / "b" / "c.css")]
    assert ignored("anything", tmp_path) == []


def test_option_args_follow_the_record(tmp_path):
    assert option_args(TYPST, {"papersize": "a4", "toc": True, "keep-typ": True}, tmp_path) == \
        ["-V", "papersize=a4", "--toc"]
    # A new format is one record: its options table is all the write stage needs.
    plain = Format(name="html", product="page.html", options={"toc": switch("--toc")},
                   figure_mimes=("image/svg+xml",), link_label="পাতা")
    assert option_args(plain, {"toc": True}, tmp_path) == ["--toc"]
    with pytest.raises(KeyError):
        option_args(plain, {"papersize": "a4"}, tmp_path)


# ---- pandoc arguments of a lecture ---------------------------------------------------------------

def _writer(builder, front):
    folder = builder.add_lecture("01-args", "# ক {#sec-a}\n\nলেখা।\n", front=front)
    project = Project(builder.root)
    lecture = qmd.read_lecture(folder / "index.qmd", builder.root)
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["lecture"] = {"versions": {"python": "3.11", "torch": "2.13.0"}, "executed_at": 0}
    record = Execution.from_notebook(notebook)
    return LectureWriter(project, SimpleNamespace(lecture=lecture, notebook=notebook, record=record)), project


def test_pandoc_arguments_per_format(project_builder):
    writer, project = _writer(project_builder, {"title": "ক"})
    for fmt in FORMATS.values():
        args = writer.pandoc_args(fmt)
        assert args[:2] == ["--from=markdown", f"--to={fmt.name}"]
        assert all(a in args for a in fmt.fixed_args)
        filters = [a.split("=", 1)[1] for a in args if a.startswith("--lua-filter=")]
        assert filters and all(os.path.exists(f) for f in filters)
        assert "versions=Python 3.11 · PyTorch 2.13.0" in args
    slides = writer.pandoc_args(REVEALJS)
    katex = next(a for a in slides if a.startswith("--katex=")).split("=", 1)[1]
    css = (project.root / katex / "katex.min.css").read_text(encoding="utf-8")
    assert ".woff2" in css and ".ttf" not in css  # only the woff2 fonts are embedded
    assert "-V" in slides and 'slideNumber="c/t"' in slides
    handout = writer.pandoc_args(TYPST)
    template = next(a for a in handout if a.startswith("--template=")).split("=", 1)[1]
    assert template.endswith("handout-template.typ") and os.path.exists(template)
    assert "--toc" in handout and "--toc" not in slides
    assert not any(a.startswith("--template=") for a in slides)


def test_front_matter_option_overrides_quarto_yml(project_builder):
    writer, project = _writer(project_builder, {"title": "ক", "format": {"revealjs": {"slide-number": False}}})
    slides = writer.pandoc_args(REVEALJS)
    assert "slideNumber=false" in slides and 'slideNumber="c/t"' not in slides


def test_unknown_option_is_named_where_it_is_set(project_builder):
    writer, project = _writer(project_builder, {"title": "ক", "format": {"typst": {"papersize": "a5",
                                                                                      "fontsize-x": 3}}})
    with pytest.raises(LectureError) as err:
        format_args(TYPST, project, writer.execution.lecture)
    assert "typst: fontsize-x" in str(err.value) and "index.qmd" in str(err.value)


# ---- the emitter takes the figure the format prefers ------------------------------------------------

def test_emitter_takes_each_formats_preferred_figure(tmp_path):
    svg = '<svg xmlns="http://www.w3.org/2000/svg"/>'
    cell = nbformat.v4.new_code_cell("#| label: fig-x\nshow()", outputs=[nbformat.v4.new_output(
        "display_data", data={"image/svg+xml": svg, "application/pdf": "JVBERi0=", "text/plain": "x"})])
    cell.metadata["lecture"] = {"options": {"label": "fig-x"}, "file": "index.qmd", "line": 1, "label": "fig-x"}
    notebook = nbformat.v4.new_notebook(cells=[cell])
    for fmt, suffix in ((REVEALJS, ".svg"), (TYPST, ".pdf")):
        text = MarkdownEmitter(fmt, tmp_path / "figures", markdown_dir=tmp_path).emit(notebook)
        assert f"figures/fig-x{suffix}" in text, text


# ---- a new format is one record ------------------------------------------------------------------

def test_a_new_record_is_known_to_every_stage_that_lists_formats(project_builder, monkeypatch):
    """The read stage's format names, `--to`, the parallel build's shared assets and the course
    page's links all come from the table: one more record and each of them knows it."""
    from lecturekit.course.build import builder as course
    from lecturekit.cli import render
    from lecturekit.course.site import course_page
    prepared = []
    plain = Format(name="plain", product="notes.txt", options={"columns": arg("--columns")},
                   figure_mimes=("image/png",), link_label="নোট", shared_assets=prepared.append)
    monkeypatch.setitem(FORMATS, "plain", plain)
    add_format_schema(monkeypatch, project_builder.root, "plain", "{columns: {type: integer, minimum: 1}}")
    folder = project_builder.add_lecture("01-a", "# ক {#sec-a}\n", front={
        "title": "ক", "format": {"plain": {"columns": 60}}})
    project = Project(project_builder.root)
    lecture = qmd.read_lecture(folder / "index.qmd", project.root)
    check_format_options(project, lecture)  # no "not one this project writes"
    assert format_args(plain, project, lecture) == ["--columns", "60"]
    assert render.parse_args(["--to", "plain"]).to == ["plain"]
    (project.output_dir / "01-a").mkdir(parents=True)
    (project.output_dir / "01-a" / "notes.txt").write_text("not made by pandoc")
    entry = course_page.lecture_entry(project, folder, course_page.lecture_meta(folder))
    assert ("নোট", "01-a/notes.txt") in [(link.label, link.href) for link in entry.links]
    plans, results = course.build_course(project, [folder], ["plain"], jobs=1, force=True)
    assert [r.error for r in results] == [None] and results[0].written == ["plain"], results
    assert "ক" in (project.output_dir / "01-a" / "notes.txt").read_text(encoding="utf-8")  # pandoc wrote it
    assert prepared == [project]  # its shared assets were prepared before the lecture was built
    monkeypatch.delitem(FORMATS, "plain")
    with pytest.raises(LectureError, match="format 'plain' is not one this project writes"):
        check_format_options(project, qmd.read_lecture(folder / "index.qmd", project.root))
