"""The write stage: executed notebook -> slides and handout, with the engines Quarto itself uses.

A declarative table says, per format, how each `_quarto.yml` option becomes a pandoc argument, what
the product is called and how it is finished (Typst compiles the handout). Products are written to a
temporary name and renamed, so a failed render leaves the previous good product in place.
"""
import datetime
import os
import re
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pypandoc
import typst

from .emit import MarkdownEmitter
from .errors import LectureError

# The handout's fonts (Debian fonts-noto-core and fonts-dejavu-core). Typst sees only these: the
# same PDF on every machine, and no scan of the hundreds of other Noto files at each compile.
FONT_FILES = {
    "/usr/share/fonts/truetype/noto": ["NotoSans-*.ttf", "NotoSansBengali-*.ttf"],
    "/usr/share/fonts/truetype/dejavu": ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono*.ttf"],
}


def handout_fonts(project):
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


# Option converters: each takes the option's value and the project root, returns pandoc arguments.

def _listed(value):
    return value if isinstance(value, list) else [value]


def var(name):
    return lambda value, root: ["-V", f"{name}={_yaml_scalar(value)}"]


def js_var(name):
    """A reveal.js setting the template writes as bare JavaScript: strings need their quotes."""
    return lambda value, root: ["-V", f"{name}={_yaml_scalar(value) if isinstance(value, (bool, int, float)) else repr(str(value))}"]


def meta(name):
    return lambda value, root: ["-M", f"{name}={_yaml_scalar(value)}"]


def arg(flag):
    return lambda value, root: [x for v in _listed(value) for x in (flag, str(v))]


def switch(flag):
    return lambda value, root: [flag] if value else []


def paths(flag):
    """An option naming files, which _quarto.yml gives relative to the project root."""
    return lambda value, root: [x for v in _listed(value) for x in (flag, str((root / v).resolve()))]


def ignored(value, root):
    return []


def _yaml_scalar(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class Format:
    name: str  # Quarto's format name, also pandoc's `-t`
    product: str  # file name inside _output/<lecture>/
    options: dict  # Quarto option -> pandoc arguments
    fixed_args: tuple = ()  # always passed


REVEALJS = Format(
    name="revealjs",
    product="slides.html",
    options={
        "slide-number": js_var("slideNumber"), "width": var("width"), "height": var("height"),
        "margin": var("margin"), "transition": var("transition"), "controls": var("controls"),
        "progress": var("progress"), "hash": var("hash"), "center": var("center"),
        "history": var("history"), "navigation-mode": var("navigationMode"),
        "controls-layout": var("controlsLayout"),
        "slide-level": arg("--slide-level"), "incremental": switch("--incremental"),
        "css": paths("--css"), "include-after-body": paths("--include-after-body"),
        "include-in-header": paths("--include-in-header"), "theme": var("theme"), "highlightjs-theme": var("highlightjs-theme"),
        # Fixed by this renderer: always KaTeX, always one self-contained file.
        "html-math-method": ignored, "embed-resources": ignored, "self-contained-math": ignored,
        "code-line-numbers": ignored, "highlight-style": ignored, "slide-tone": ignored,
        "output-file": ignored, "menu": ignored,
    },
    fixed_args=("--standalone", "--embed-resources", "--syntax-highlighting=idiomatic"),
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
    },
    fixed_args=("--standalone",),
)

FORMATS = {f.name: f for f in (REVEALJS, TYPST)}


def _format_args(fmt, options, project, source):
    args = []
    for key, value in (options or {}).items():
        convert = fmt.options.get(key)
        if convert is None:
            raise LectureError(f"format option '{fmt.name}: {key}' is outside the supported subset "
                               f"({', '.join(sorted(fmt.options))})", source, _line_of(source, key))
        args += convert(value, project.root)
    return args


def _line_of(path, key):
    try:
        for i, line in enumerate(Path(path).read_text(encoding="utf-8").split("\n"), 1):
            if line.strip().startswith(f"{key}:"):
                return i
    except OSError:
        pass
    return None


WOFF2_ONLY = re.compile(r'(url\([^)]+\.woff2\) format\("woff2"\))(?:,url\([^)]+\) format\("[^"]+"\))+')


def woff2_katex(project):
    """KaTeX with only its woff2 fonts: every browser that runs reveal.js reads woff2, and
    embedding the woff and ttf copies as well would triple the deck's size."""
    source = project.root / "node_modules" / "katex" / "dist"
    target = project.build_dir / "katex"
    css = WOFF2_ONLY.sub(r"\1", (source / "katex.min.css").read_text(encoding="utf-8"))
    target.mkdir(parents=True, exist_ok=True)
    if not (target / "katex.min.css").exists() or (target / "katex.min.css").read_text(encoding="utf-8") != css:
        (target / "katex.min.css").write_text(css, encoding="utf-8")
        shutil.copy(source / "katex.min.js", target / "katex.min.js")
        shutil.copytree(source / "fonts", target / "fonts", dirs_exist_ok=True)
    return target


MONTHS = ["জানুয়ারি", "ফেব্রুয়ারি", "মার্চ", "এপ্রিল", "মে", "জুন", "জুলাই", "আগস্ট", "সেপ্টেম্বর",
          "অক্টোবর", "নভেম্বর", "ডিসেম্বর"]
BENGALI_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")


def bengali_date(timestamp):
    day = datetime.datetime.fromtimestamp(timestamp, datetime.timezone.utc)
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}".translate(BENGALI_DIGITS)


def _replace_atomically(tmp, target):
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(tmp, target)


class LectureWriter:
    """Write one lecture's products from its executed notebook."""

    def __init__(self, project, execution):
        self.project = project
        self.execution = execution
        self.name = execution.lecture.name
        self.build = project.build_dir / self.name
        self.timings = {}
        self.warnings = []

    def format_options(self, fmt):
        # _quarto.yml's options, then the lecture's own front matter on top (as Quarto merges them).
        merged = dict((self.project.config.get("format") or {}).get(fmt.name) or {})
        merged.update((self.execution.lecture.meta.get("format") or {}).get(fmt.name) or {})
        return merged

    def echo_default(self, fmt):
        execute = {**(self.project.config.get("execute") or {}), **(self.execution.lecture.meta.get("execute") or {})}
        return self.format_options(fmt).get("echo", execute.get("echo", True))

    def markdown(self, fmt):
        emitter = MarkdownEmitter(fmt.name, self.build / "media", echo_default=self.echo_default(fmt))
        text = emitter.emit(self.execution.notebook)
        path = self.build / f"{self.name}.{fmt.name}.md"
        path.write_text(text, encoding="utf-8")
        return path

    def pandoc_args(self, fmt):
        ext = self.project.extension_dir
        options = self.format_options(fmt)
        args = ["--from=markdown", f"--to={fmt.name}", *fmt.fixed_args,
                f"--resource-path={self.build}:{self.project.root}",
                "--metadata", f"lang={self.project.config.get('lang', 'bn')}"]
        for flt in self.project.config.get("filters") or []:
            args.append(f"--lua-filter={(self.project.root / flt).resolve()}")
        if fmt is REVEALJS:
            node = self.project.root / "node_modules"
            args += [f"--variable=revealjs-url={node / 'reveal.js'}", f"--katex={woff2_katex(self.project)}/"]
        if fmt is TYPST:
            args += [f"--template={ext / 'handout-template.typ'}"]
        args += self._provenance_metadata()
        args += _format_args(fmt, options, self.project, self.project.root / "_quarto.yml")
        return args

    def _provenance_metadata(self):
        """The cover says when the outputs were made and by which versions."""
        record = self.execution.notebook.metadata.get("lecture", {})
        versions = record.get("versions") or {}
        args = []
        if versions:
            text = " · ".join(f"{name} {versions[key]}" for key, name in
                              (("python", "Python"), ("torch", "PyTorch"), ("numpy", "NumPy")) if versions.get(key))
            args += ["--metadata", f"versions={text}"]
        if record.get("executed_at"):
            args += ["--metadata", f"render-date={bengali_date(record['executed_at'])}"]
        return args

    def write(self, fmt):
        """Render one product; return its path. The old product survives any failure."""
        target = self.project.output_dir / self.name / fmt.product
        started = time.perf_counter()
        source = self.markdown(fmt)
        self.timings[f"emit {fmt.name}"] = time.perf_counter() - started
        started = time.perf_counter()
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            if fmt is TYPST:
                typ = self.build / f"{self.name}.typ"
                self._pandoc(source, typ, fmt)
                self.timings["pandoc typst"] = time.perf_counter() - started
                started = time.perf_counter()
                self._typst(typ, tmp)
                self.timings["typst"] = time.perf_counter() - started
            else:
                self._pandoc(source, tmp, fmt)
                self.timings["pandoc revealjs"] = time.perf_counter() - started
            _replace_atomically(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        return target

    def _pandoc(self, source, output, fmt):
        run = subprocess.run([pypandoc.get_pandoc_path(), str(source), *self.pandoc_args(fmt), "-o", str(output)],
                             cwd=self.build, capture_output=True, text=True)
        if run.returncode != 0:
            raise LectureError(f"pandoc could not write the {fmt.name} product:\n{run.stderr.strip()}",
                               self.execution.lecture.index)
        # Warnings (an unresolved @fig- reference, a missing image) are the author's to see.
        self.warnings.extend(line for line in run.stderr.splitlines() if line.strip())

    def _typst(self, typ, pdf):
        # The PDF's date is the execution's date: the same executed notebook gives the same bytes.
        executed_at = self.execution.notebook.metadata.get("lecture", {}).get("executed_at")
        try:
            typst.compile(str(typ), output=str(pdf), root=str(self.project.root),
                          font_paths=[str(handout_fonts(self.project))], ignore_system_fonts=True,
                          timestamp=executed_at or 0, pdf_tags=True)
        except Exception as err:  # typst raises its own error type with the diagnostics
            raise LectureError(f"typst could not compile the handout: {err}", typ) from None
