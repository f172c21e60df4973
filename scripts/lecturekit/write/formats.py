"""The formats a lecture is written in, one record each, in one table (`FORMATS`).

A `Format` says everything the write stage, the build and the course page need to know about a
format: the product's file name, which Quarto options it accepts and the pandoc arguments each
becomes, the figure data it prefers, its fixed and project-dependent pandoc arguments, the step that
finishes pandoc's output into the product (Typst compiles the handout), the assets every lecture
shares (prepared once before parallel renders) and its link on the course page. The stages read
the record; none of them branches on a format's name. Adding a format is adding a record here.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from lecturekit import schema
from lecturekit.errors import LectureError
from lecturekit.write.pdfprefs import display_doc_title
from lecturekit.write.policy import with_policy
from lecturekit.words import WORDS

if TYPE_CHECKING:
    from lecturekit.project import Project
    from lecturekit.read.qmd import Lecture

# An option converter: the option's value and the project root -> pandoc arguments.
Converter = Callable[[Any, Path], list[str]]


# ---- option converters ----------------------------------------------------------------------------

def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _yaml_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def script_json(value: Any) -> str:
    """`value` as JSON that can sit inside an HTML <script> element: `<`, `>` and `&` escaped (no
    `</script>` or `<!--` ends or bends the element), U+2028/U+2029 too (line ends to older JS)."""
    text = json.dumps(value, ensure_ascii=False)
    for char in "<>&\u2028\u2029":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


def var(name: str) -> Converter:
    """A template variable (`-V name=value`)."""
    return lambda value, root: ["-V", f"{name}={_yaml_scalar(value)}"]


def renamed_var(name: str, renames: dict[str, str]) -> Converter:
    """A template variable whose Quarto spelling differs from reveal.js's for some values."""
    return lambda value, root: ["-V", f"{name}={renames.get(str(value), _yaml_scalar(value))}"]


def js_var(name: str) -> Converter:
    """A reveal.js setting the template writes as bare JavaScript: strings need their quotes."""
    return lambda value, root: ["-V", f"{name}={_yaml_scalar(value) if isinstance(value, (bool, int, float)) else script_json(str(value))}"]


def meta(name: str) -> Converter:
    """A metadata field (`-M name=value`)."""
    return lambda value, root: ["-M", f"{name}={_yaml_scalar(value)}"]


def arg(flag: str) -> Converter:
    """A pandoc option with a value, once per listed value."""
    return lambda value, root: [x for v in _listed(value) for x in (flag, str(v))]


def switch(flag: str) -> Converter:
    """A pandoc flag, given when the option is true."""
    return lambda value, root: [flag] if value else []


def paths(flag: str) -> Converter:
    """An option naming files, which _quarto.yml gives relative to the project root."""
    return lambda value, root: [x for v in _listed(value) for x in (flag, str((root / v).resolve()))]


def ignored(value: Any, root: Path) -> list[str]:
    """An option Quarto knows and this renderer fixes (or that only Quarto needs)."""
    return []


def reveal_menu(value: Any, root: Path) -> list[str]:
    """Quarto's `menu` (true, false, or the plugin's options): reveal.js-menu from node_modules,
    embedded with its stylesheet, as one more include after the body."""
    if value is False or value is None:
        return []
    options = value if isinstance(value, dict) else {}
    plugin = root / "node_modules" / "reveal.js-menu"
    if not (plugin / "menu.js").exists():
        raise LectureError("the slide menu needs reveal.js-menu from package-lock.json: run scripts/setup")
    snippet = (root / "_extensions" / "lecture" / "reveal-menu.html").read_text(encoding="utf-8")
    html = ("<style>\n" + (plugin / "menu.css").read_text(encoding="utf-8") + "\n</style>\n<script>\n"
            + (plugin / "menu.js").read_text(encoding="utf-8") + "\n</script>\n"
            + snippet.replace("__MENU_OPTIONS__", script_json(options)))
    target = root / "_build" / "reveal-menu" / f"menu-{hashlib.sha256(html.encode()).hexdigest()[:12]}.html"
    try:
        kept = target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        kept = None
    if kept != html:  # none yet, or damaged since (a truncated file would ship a broken menu)
        # Named by its content and renamed into place: lectures rendering at once share it safely.
        target.parent.mkdir(parents=True, exist_ok=True)
        aside = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}")
        aside.write_text(html, encoding="utf-8")
        os.replace(aside, target)
    return ["--include-after-body", str(target)]


# ---- shared assets ----------------------------------------------------------------------------------

# The handout's fonts (Debian fonts-noto-core and fonts-dejavu-core). Typst sees only these: the
# same PDF on every machine, and no scan of the hundreds of other Noto files at each compile.
FONT_FILES = {
    "/usr/share/fonts/truetype/noto": ["NotoSans-*.ttf", "NotoSansBengali-*.ttf"],
    "/usr/share/fonts/truetype/dejavu": ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono*.ttf"],
}


def handout_fonts(project: Project) -> Path:
    """A folder of links to exactly the handout's fonts."""
    folder = project.build_dir / "fonts"
    folder.mkdir(parents=True, exist_ok=True)
    for directory, patterns in FONT_FILES.items():
        for pattern in patterns:
            found = sorted(Path(directory).glob(pattern))
            if not found:
                raise LectureError(f"font {directory}/{pattern} is missing; install it with: "
                                   "apt-get install fonts-noto-core fonts-dejavu-core")
            for font in found:
                link = folder / font.name
                if link.is_symlink() and link.readlink() == font:
                    continue
                # Linked aside and renamed into place: a concurrent render, or a stale link left
                # by another machine's fonts, never makes this fail.
                aside = folder / f".{font.name}.{os.getpid()}.{threading.get_ident()}"
                aside.unlink(missing_ok=True)
                aside.symlink_to(font)
                os.replace(aside, link)
    return folder


WOFF2_ONLY = re.compile(r'(url\([^)]+\.woff2\) format\("woff2"\))(?:,url\([^)]+\) format\("[^"]+"\))+')


def woff2_katex(project: Project) -> Path:
    """KaTeX with only its woff2 fonts: every browser that runs reveal.js reads woff2, and
    embedding the woff and ttf copies as well would triple the deck's size."""
    source = project.root / "node_modules" / "katex" / "dist"
    target = project.build_dir / "katex"
    css = WOFF2_ONLY.sub(r"\1", (source / "katex.min.css").read_text(encoding="utf-8"))
    target.mkdir(parents=True, exist_ok=True)
    if not (target / "katex.min.css").exists() or (target / "katex.min.css").read_text(encoding="utf-8") != css:
        # The stylesheet is renamed into place last, and each file atomically: another render
        # reading these at the same time never sees half a file.
        for font in (source / "fonts").iterdir():
            _copy_atomically(font, target / "fonts" / font.name)
        _copy_atomically(source / "katex.min.js", target / "katex.min.js")
        aside = target / f".katex.min.css.{os.getpid()}.{threading.get_ident()}"
        aside.write_text(css, encoding="utf-8")
        os.replace(aside, target / "katex.min.css")
    return target


def _copy_atomically(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    aside = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}")
    shutil.copyfile(source, aside)
    os.replace(aside, target)


# ---- finishing steps -------------------------------------------------------------------------------

class LectureWriter(Protocol):
    """What a finishing step uses of the writer (write/writers.py's LectureWriter, which imports this
    module: a protocol here keeps the two from importing each other)."""
    project: Project
    execution: Any
    build: Path
    children: Any


@dataclass(frozen=True)
class Finish:
    """What turns pandoc's output into the product, when pandoc does not write the product itself."""
    name: str  # also the key of its time in the writer's timings
    suffix: str  # pandoc's output, `_build/<lecture>/<lecture><suffix>`
    run: Callable[[LectureWriter, Path, Path], None]  # (writer, pandoc's output, product file)
    packages: tuple[str, ...] = ()  # the Python packages doing it: their versions are inputs of every product


# The Typst compile as a child process. SIGINT kills it at once (Python would only see the signal
# after the compiler returned); its own exception text is the message.
_TYPST_CHILD = """
import json, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
import typst
options = json.loads(sys.argv[1])
try:
    typst.compile(options.pop("input"), **options)
except Exception as err:
    sys.exit(getattr(err, "diagnostic", None) or str(err))  # with file:line:column
"""


def compile_typst(writer: LectureWriter, typ: Path, pdf: Path) -> None:
    """Typst -> PDF with exactly the handout's fonts. The PDF's date is the execution's date: the
    same executed notebook gives the same bytes."""
    executed_at = writer.execution.record.environment.executed_at
    options = dict(input=str(typ), output=str(pdf), root=str(writer.project.root),
                   font_paths=[str(handout_fonts(writer.project))], ignore_system_fonts=True,
                   timestamp=executed_at or 0, pdf_tags=True)
    # Typst runs in a child process: inside the compiler nothing answers Ctrl-C, a child can be killed.
    run = writer.children.run([sys.executable, "-c", _TYPST_CHILD, json.dumps(options)], cwd=writer.build)
    if run.returncode != 0:
        raise LectureError(f"typst could not compile the handout: {run.stderr.strip()}", typ)
    # The viewer shows the handout's title, not its file name (Typst has no setting for it).
    display_doc_title(pdf)


# ---- the record ---------------------------------------------------------------------------------

def _no_args(project: Project) -> list[str]:
    return []


def _no_assets(project: Project) -> None:
    return None


# eq=False: a format is its record; identity is equality (and the options table is not hashable).
@dataclass(frozen=True, eq=False)
class Format:
    name: str  # Quarto's format name, also pandoc's `--to`
    product: str  # file name inside _output/<lecture>/
    options: Mapping[str, Converter]  # the Quarto options it accepts -> their pandoc arguments
    figure_mimes: tuple[str, ...]  # figure data it takes, best first
    link_label: str  # the product's link on the course page
    fixed_args: tuple[str, ...] = ()  # pandoc arguments always passed
    project_args: Callable[[Project], list[str]] = _no_args  # pandoc arguments that name project files
    finish: Finish | None = None  # None: pandoc writes the product itself
    shared_assets: Callable[[Project], object] = _no_assets  # prepared once before lectures render in parallel
    # Quarto's own default for an option where pandoc's differs, so both renderers agree when
    # neither _quarto.yml nor the front matter sets it.
    defaults: Mapping[str, Any] = field(default_factory=dict)
    # The product shows the lecture's links to the rest of the course (its neighbours' titles,
    # _build/<lecture>/_metadata.yml): a new neighbour writes it again.
    course_links: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))
        object.__setattr__(self, "defaults", MappingProxyType(dict(self.defaults)))

    def __repr__(self) -> str:
        return f"Format({self.name!r})"


def write_deck_policy(writer: LectureWriter, html: Path, deck: Path) -> None:
    """The deck with its Content-Security-Policy (write/policy.py): only its own scripts run."""
    deck.write_text(with_policy(html.read_text(encoding="utf-8")), encoding="utf-8")


def _revealjs_args(project: Project) -> list[str]:
    return [f"--variable=revealjs-url={project.root / 'node_modules' / 'reveal.js'}",
            f"--katex={woff2_katex(project)}/"]


def _typst_args(project: Project) -> list[str]:
    return [f"--template={project.extension_dir / 'handout-template.typ'}"]


REVEALJS = Format(
    name="revealjs",
    product="slides.html",
    options={
        "slide-number": js_var("slideNumber"), "width": var("width"), "height": var("height"),
        "margin": var("margin"), "transition": var("transition"), "controls": var("controls"),
        "progress": var("progress"), "hash": var("hash"), "center": var("center"),
        "history": var("history"), "navigation-mode": renamed_var("navigationMode", {"vertical": "default"}),
        "controls-layout": var("controlsLayout"),
        "slide-level": arg("--slide-level"), "incremental": switch("--incremental"),
        "css": paths("--css"), "include-after-body": paths("--include-after-body"),
        "include-in-header": paths("--include-in-header"), "theme": var("theme"), "highlightjs-theme": var("highlightjs-theme"),
        # Fixed by this renderer: always KaTeX, always one self-contained file.
        "html-math-method": ignored, "embed-resources": ignored, "self-contained-math": ignored,
        "code-line-numbers": ignored, "highlight-style": ignored, "slide-tone": ignored,
        "output-file": ignored, "menu": reveal_menu, "code-copy": ignored,
        # `![…](../../figures/09-nn-module/drawn)`: the slides take drawn.svg, the handout drawn.pdf.
        "default-image-extension": arg("--default-image-extension"),
    },
    # SVG keeps slides sharp.
    figure_mimes=("image/svg+xml", "image/png", "application/pdf"),
    link_label=WORDS["slides"],
    fixed_args=("--standalone", "--embed-resources", "--syntax-highlighting=idiomatic"),
    project_args=_revealjs_args,
    finish=Finish(name="policy", suffix=".deck.html", run=write_deck_policy),
    shared_assets=woff2_katex,
    # Quarto's: → walks every slide and fragment (pandoc's 'default' jumps from part to part), and
    # the slide menu.
    defaults={"navigation-mode": "linear", "menu": True},
)

TYPST = Format(
    name="typst",
    product="handout.pdf",
    options={
        "papersize": var("papersize"), "toc": switch("--toc"), "toc-depth": arg("--toc-depth"),
        "toc-title": meta("toc-title"), "number-sections": switch("--number-sections"),
        "section-numbering": var("section-numbering"), "fontsize": var("fontsize"),
        "mainfont": var("mainfont"), "margin": var("margin"), "columns": var("columns"),
        "include-in-header": paths("--include-in-header"),
        "syntax-highlighting": lambda value, root: [f"--syntax-highlighting={value}"],
        # Quarto-only: its typst partials call the same handout.typ that our template imports.
        "template-partials": ignored, "keep-typ": ignored, "keep-ipynb": ignored, "output-file": ignored,
        "default-image-extension": arg("--default-image-extension"),
    },
    # Typst mangles Bengali inside SVG: the handout takes the PDF rendering of the same figure.
    figure_mimes=("application/pdf", "image/png", "image/svg+xml"),
    link_label=WORDS["handout"],
    fixed_args=("--standalone",),
    project_args=_typst_args,
    finish=Finish(name="typst", suffix=".typ", run=compile_typst, packages=("typst", "pikepdf")),
    shared_assets=handout_fonts,
)

HTML = Format(
    name="html",
    product="index.html",
    options={
        # The page's own template (landmarks, header, contents, the episode's other products) and
        # nothing of Quarto's site theme: Quarto's `minimal`/`theme: none` give pandoc's HTML, as ours.
        "template": paths("--template"), "minimal": ignored, "theme": ignored,
        # Fixed by this renderer: figures inside the page, shared assets linked (data-external);
        # formulas typeset at render time by the lecture filter (KaTeX), so no maths script.
        "embed-resources": ignored, "html-math-method": ignored, "code-copy": ignored,
        "output-file": ignored,
        "default-image-extension": arg("--default-image-extension"),
    },
    # SVG: sharp at any zoom on a phone, and text-sized.
    figure_mimes=("image/svg+xml", "image/png"),
    link_label=WORDS["page"],
    # Quarto writes HTML unwrapped (`wrap: none`), as here.
    fixed_args=("--standalone", "--embed-resources", "--section-divs", "--wrap=none"),
    course_links=True,
)

# The course page links each lecture's products in this order: the page (students) first.
FORMATS: dict[str, Format] = {f.name: f for f in (HTML, REVEALJS, TYPST)}


# ---- options from _quarto.yml and the front matter -------------------------------------------------

def _options(formats: Any, fmt: Format) -> dict[str, Any]:
    """One format's options from a `format:` mapping (`revealjs: default` means none)."""
    options = (formats or {}).get(fmt.name)
    return options if isinstance(options, dict) else {}


def option_sources(project: Project, lecture: Lecture, fmt: Format) -> dict[str, tuple[Any, Path | None, int | None]]:
    """Each option of a format with its value and where it is set: the format's defaults (Quarto's),
    _quarto.yml's options, then the lecture's own front matter on top (as Quarto merges them)."""
    found: dict[str, tuple[Any, Path | None, int | None]] = {key: (value, None, None) for key, value in fmt.defaults.items()}
    for config, path, lines in ((project.config, project.config_path, project.config_lines),
                                (lecture.meta, lecture.index, lecture.meta_lines)):
        for key, value in _options(config.get("format"), fmt).items():
            found[key] = (value, path, lines.get(("format", fmt.name, key)))
    return found


def check_format_names(formats: object, path: Path, lines: dict[tuple[str, ...], int]) -> None:
    """A `format:` mapping (of _quarto.yml or a front matter) names only formats of the table, each
    with a mapping of options (or `default`): Quarto would write a product for `format: pdf` that we
    never do."""
    if formats is None:
        return
    if not isinstance(formats, dict):
        raise LectureError(f"'format:' must map format names ({', '.join(FORMATS)}) to their options",
                           path, lines.get(("format",)))
    for name, options in formats.items():
        if name not in FORMATS:  # the formats this renderer writes: the format table
            raise LectureError(f"format '{name}' is not one this project writes ({', '.join(FORMATS)})",
                               path, lines.get(("format", name)))
        if options is not None and options != "default" and not isinstance(options, dict):
            raise LectureError(f"'format: {name}:' must hold 'option: value' lines", path,
                               lines.get(("format", name)))


def check_format_options(project: Project, lecture: Lecture) -> None:
    """Every format, and every format option, is one this renderer knows; an unknown one is blamed
    where it is set: _quarto.yml first, then the lecture's front matter."""
    check_format_names(project.config.get("format"), project.config_path, project.config_lines)
    check_format_names(lecture.meta.get("format"), lecture.index, lecture.meta_lines)
    for fmt in FORMATS.values():
        # each value's type, range, pattern: schemas/format-<name>.yaml (every format has one)
        for config, where, lines in ((project.config, project.config_path, project.config_lines),
                                     (lecture.meta, lecture.index, lecture.meta_lines)):
            schema.check(_options(config.get("format"), fmt), f"format-{fmt.name}", where, lines,
                         at=("format", fmt.name), what="format option", named=(fmt.name,),
                         line=lines.get(("format", fmt.name)))
        for key, (_value, path, line) in option_sources(project, lecture, fmt).items():
            if key not in fmt.options:
                raise LectureError(f"format option '{fmt.name}: {key}' is outside the supported subset "
                                   f"({', '.join(sorted(fmt.options))})", path, line)


def option_args(fmt: Format, options: Mapping[str, Any], root: Path) -> list[str]:
    """The pandoc arguments of a format's options (all of them known to it)."""
    return [a for key, value in options.items() for a in fmt.options[key](value, root)]


def format_args(fmt: Format, project: Project, lecture: Lecture) -> list[str]:
    """The pandoc arguments a lecture's options give for one format."""
    check_format_options(project, lecture)
    options = {key: value for key, (value, _path, _line) in option_sources(project, lecture, fmt).items()}
    return option_args(fmt, options, project.root)
