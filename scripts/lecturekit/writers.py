"""The write stage: executed notebook -> slides and handout, with the engines Quarto itself uses.

A declarative table says, per format, how each `_quarto.yml` option becomes a pandoc argument, what
the product is called and how it is finished (Typst compiles the handout). Products are written to a
temporary name, and a lecture's products are renamed into place together once all of them succeeded:
a failed render leaves the previous good ones in place, never a new slides.html with an old handout.
"""
import concurrent.futures as cf
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pypandoc

from .emit import MarkdownEmitter
from .errors import LectureError
from .figures import lecture_figures_dir

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
        # `![…](../../figures/09-nn-module/drawn)`: the slides take drawn.svg, the handout drawn.pdf.
        "default-image-extension": arg("--default-image-extension"),
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
        "default-image-extension": arg("--default-image-extension"),
    },
    fixed_args=("--standalone",),
)

FORMATS = {f.name: f for f in (REVEALJS, TYPST)}


def _options(formats, fmt):
    """One format's options from a `format:` mapping (`revealjs: default` means none)."""
    options = (formats or {}).get(fmt.name)
    return options if isinstance(options, dict) else {}


def option_sources(project, lecture, fmt):
    """Each option of a format with its value and where it is set: _quarto.yml's options, then the
    lecture's own front matter on top (as Quarto merges them)."""
    found = {}
    for config, path, lines in ((project.config, project.config_path, project.config_lines),
                                (lecture.meta, lecture.index, lecture.meta_lines)):
        for key, value in _options(config.get("format"), fmt).items():
            found[key] = (value, path, lines.get(("format", fmt.name, key)))
    return found


def check_format_options(project, lecture):
    """Every format option is one this renderer knows; an unknown one is blamed where it is set."""
    for fmt in FORMATS.values():
        for key, (_value, path, line) in option_sources(project, lecture, fmt).items():
            if key not in fmt.options:
                raise LectureError(f"format option '{fmt.name}: {key}' is outside the supported subset "
                                   f"({', '.join(sorted(fmt.options))})", path, line)


def _format_args(fmt, project, lecture):
    check_format_options(project, lecture)
    args = []
    for key, (value, _path, _line) in option_sources(project, lecture, fmt).items():
        args += fmt.options[key](value, project.root)
    return args


WOFF2_ONLY = re.compile(r'(url\([^)]+\.woff2\) format\("woff2"\))(?:,url\([^)]+\) format\("[^"]+"\))+')


def woff2_katex(project):
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


MONTHS = ["জানুয়ারি", "ফেব্রুয়ারি", "মার্চ", "এপ্রিল", "মে", "জুন", "জুলাই", "আগস্ট", "সেপ্টেম্বর",
          "অক্টোবর", "নভেম্বর", "ডিসেম্বর"]
BENGALI_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")


def bengali_date(timestamp):
    day = datetime.datetime.fromtimestamp(timestamp, datetime.timezone.utc)
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}".translate(BENGALI_DIGITS)


def _copy_atomically(source, target):
    target.parent.mkdir(parents=True, exist_ok=True)
    aside = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}")
    shutil.copyfile(source, aside)
    os.replace(aside, target)


class LectureWriter:
    """Write one lecture's products from its executed notebook."""

    def __init__(self, project, execution):
        self.project = project
        self.execution = execution
        self.name = execution.lecture.name
        self.build = project.build_dir / self.name
        self.timings = {}
        self.warnings = []
        self.children = Children()

    def format_options(self, fmt):
        return {key: value for key, (value, _path, _line) in
                option_sources(self.project, self.execution.lecture, fmt).items()}

    def echo_default(self, fmt):
        execute = {**(self.project.config.get("execute") or {}), **(self.execution.lecture.meta.get("execute") or {})}
        return self.format_options(fmt).get("echo", execute.get("echo", True))

    def markdown(self, fmt):
        emitter = MarkdownEmitter(fmt.name, lecture_figures_dir(self.project.root, self.name),
                                  echo_default=self.echo_default(fmt), markdown_dir=self.build)
        text = emitter.emit(self.execution.notebook)
        path = self.build / f"{self.name}.{fmt.name}.md"
        path.write_text(text, encoding="utf-8")
        return path

    def pandoc_args(self, fmt):
        ext = self.project.extension_dir
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
        args += _format_args(fmt, self.project, self.execution.lecture)
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

    def write_all(self, formats):
        """Render the formats (at the same time: pandoc and Typst are child processes) and only when
        every one succeeded put them all in place, so a lecture's slides and handout always come
        from the same render. Any failure or Ctrl-C stops the children and leaves the old products."""
        formats = list(formats)
        aside = {}
        try:
            if len(formats) == 1:
                aside[formats[0].name] = self.write_aside(formats[0])
            else:
                with cf.ThreadPoolExecutor(len(formats)) as pool:
                    futures = {fmt.name: pool.submit(self.write_aside, fmt) for fmt in formats}
                    try:
                        for name, future in futures.items():
                            aside[name] = future.result()
                    except BaseException:
                        self.children.stop()
                        raise
            targets = []
            for fmt in formats:
                target = self.project.output_dir / self.name / fmt.product
                os.replace(aside.pop(fmt.name), target)
                targets.append(target)
            return targets
        finally:
            for tmp in aside.values():
                tmp.unlink(missing_ok=True)

    def write(self, fmt):
        """Render one product; return its path. The old product survives any failure."""
        return self.write_all([fmt])[0]

    def write_aside(self, fmt):
        """Render one product next to where it goes; return that temporary file."""
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
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return tmp

    def _pandoc(self, source, output, fmt):
        run = self.children.run([pypandoc.get_pandoc_path(), str(source), *self.pandoc_args(fmt), "-o", str(output)],
                                cwd=self.build)
        if run.returncode != 0:
            raise LectureError(f"pandoc could not write the {fmt.name} product:\n{run.stderr.strip()}",
                               self.execution.lecture.index)
        # Warnings (an unresolved @fig- reference, a missing image) are the author's to see.
        self.warnings.extend(line for line in run.stderr.splitlines() if line.strip())

    def _typst(self, typ, pdf):
        # The PDF's date is the execution's date: the same executed notebook gives the same bytes.
        executed_at = self.execution.notebook.metadata.get("lecture", {}).get("executed_at")
        options = dict(input=str(typ), output=str(pdf), root=str(self.project.root),
                       font_paths=[str(handout_fonts(self.project))], ignore_system_fonts=True,
                       timestamp=executed_at or 0, pdf_tags=True)
        # Typst runs in a child process: inside the compiler nothing answers Ctrl-C, a child can be killed.
        run = self.children.run([sys.executable, "-c", _TYPST_CHILD, json.dumps(options)], cwd=self.build)
        if run.returncode != 0:
            raise LectureError(f"typst could not compile the handout: {run.stderr.strip()}", typ)


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
    sys.exit(str(err))
"""


class Children:
    """The child processes of a write stage (pandoc, Typst), so that all of them can be stopped
    when one format fails or the user presses Ctrl-C."""

    def __init__(self):
        self.lock = threading.Lock()
        self.running = set()
        self.stopped = False

    def run(self, argv, cwd):
        """Run argv to its end; return a CompletedProcess with text output."""
        with self.lock:
            if self.stopped:
                raise KeyboardInterrupt
            process = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.running.add(process)
        try:
            out, err = process.communicate()
        except BaseException:
            process.kill()
            process.wait()
            raise
        finally:
            with self.lock:
                self.running.discard(process)
        return subprocess.CompletedProcess(argv, process.returncode, out, err)

    def stop(self):
        with self.lock:
            self.stopped = True
            for process in self.running:
                process.kill()
