"""The write stage: executed notebook -> slides and handout, with the engines Quarto itself uses.

What differs between formats (product name, options and their pandoc arguments, figure types, the
finishing step such as Typst's compile) is each format's record in `formats.py`; this module runs
them. Products are written to a temporary name, and a lecture's products are renamed into place
together once all of them succeeded: a failed render leaves the previous good ones in place, never a
new slides.html with an old handout.
"""
from __future__ import annotations

import concurrent.futures as cf
import contextlib
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any


from lecturekit.words import bengali_date
from lecturekit.write.emit import MarkdownEmitter
from lecturekit.errors import LectureError
from lecturekit.pandoc import PandocError, run_pandoc
from lecturekit.read.qmd import Markdown
from lecturekit.write.figures import cell_figures, lecture_figures_dir
from lecturekit.write.formats import Format, format_args, option_sources

if TYPE_CHECKING:
    from lecturekit.execute.build import ExecutedLecture
    from lecturekit.read.qmd import Lecture
    from lecturekit.project import Project



class LectureWriter:
    """Write one lecture's products from its executed notebook."""

    def __init__(self, project: Project, execution: ExecutedLecture) -> None:
        self.project = project
        self.execution = execution
        self.name = execution.lecture.name
        self.build = project.build_dir / self.name
        self.timings: dict[str, float] = {}
        self.warnings: list[str] = []
        self.children = Children()

    def format_options(self, fmt: Format) -> dict[str, Any]:
        return {key: value for key, (value, _path, _line) in
                option_sources(self.project, self.execution.lecture, fmt).items()}

    def echo_default(self, fmt: Format) -> bool:
        execute = {**(self.project.config.get("execute") or {}), **(self.execution.lecture.meta.get("execute") or {})}
        return bool(self.format_options(fmt).get("echo", execute.get("echo", True)))

    def emitter(self, fmt: Format) -> MarkdownEmitter:
        return MarkdownEmitter(fmt, lecture_figures_dir(self.project.root, self.name),
                               echo_default=self.echo_default(fmt), markdown_dir=self.build)

    def markdown(self, fmt: Format) -> Path:
        text = self.emitter(fmt).emit(self.execution.notebook)
        path = self.build / f"{self.name}.{fmt.name}.md"
        path.write_text(text, encoding="utf-8")
        return path

    def pandoc_args(self, fmt: Format) -> list[str]:
        args = ["--from=markdown", f"--to={fmt.name}", *fmt.fixed_args,
                f"--resource-path={self.build}:{self.project.root}",
                "--metadata", f"lang={self.project.config.get('lang', 'bn')}"]
        for flt in self.project.config.get("filters") or []:
            args.append(f"--lua-filter={(self.project.root / flt).resolve()}")
        args += fmt.project_args(self.project)
        # The folder's metadata, as Quarto reads `_metadata.yml` beside the notebook it renders
        # (course/site/pages.py writes it: what the lecture's page links to).
        folder_metadata = self.build / "_metadata.yml"
        if folder_metadata.exists():
            args += ["--metadata-file", str(folder_metadata)]
        args += self._provenance_metadata()
        args += format_args(fmt, self.project, self.execution.lecture)
        return args

    def _provenance_metadata(self) -> list[str]:
        """The cover says when the outputs were made and by which versions."""
        environment = self.execution.record.environment
        versions = environment.versions
        args = []
        if versions:
            text = " · ".join(f"{name} {versions[key]}" for key, name in
                              (("python", "Python"), ("torch", "PyTorch"), ("numpy", "NumPy")) if versions.get(key))
            args += ["--metadata", f"versions={text}"]
        if environment.executed_at:
            args += ["--metadata", f"render-date={bengali_date(environment.executed_at)}"]
        return args

    def write_all(self, formats: Iterable[Format]) -> list[Path]:
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
                        # A format that finished meanwhile left its file aside: removed below too.
                        for other, future in futures.items():
                            try:
                                aside.setdefault(other, future.result())
                            except BaseException:
                                pass
                        raise
            # Files aside that were not renamed (a failed swap) are removed below.
            return swap_in([(aside[fmt.name], self.project.output_dir / self.name / fmt.product)
                            for fmt in formats])
        finally:
            for tmp in aside.values():
                with contextlib.suppress(OSError):  # a cleanup failure never hides the real error
                    tmp.unlink(missing_ok=True)

    def write(self, fmt: Format) -> Path:
        """Render one product; return its path. The old product survives any failure."""
        return self.write_all([fmt])[0]

    def write_aside(self, fmt: Format) -> Path:
        """Render one product next to where it goes; return that temporary file."""
        target = self.project.output_dir / self.name / fmt.product
        started = time.perf_counter()
        source = self.markdown(fmt)
        self.timings[f"emit {fmt.name}"] = time.perf_counter() - started
        started = time.perf_counter()
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        target.parent.mkdir(parents=True, exist_ok=True)
        # A folder that cannot be written (read-only) is named now, in our words, not pandoc's.
        tmp.touch()
        try:
            # pandoc writes the product, or what the format's finishing step turns into it.
            written = self.build / f"{self.name}{fmt.finish.suffix}" if fmt.finish else tmp
            self._pandoc(source, written, fmt)
            self.timings[f"pandoc {fmt.name}"] = time.perf_counter() - started
            if fmt.finish:
                started = time.perf_counter()
                try:
                    fmt.finish.run(self, written, tmp)
                except LectureError as err:
                    fault = machine_fault(err.message)
                    if fault:
                        raise LectureError(f"cannot write {tmp}: {fault}") from None
                    raise self._at_source(err, written) from None
                except OSError as err:  # the step's own write: a full or read-only disk, named with its file
                    raise LectureError(f"cannot write {tmp}: {err.strerror or err}") from None
                self.timings[fmt.finish.name] = time.perf_counter() - started
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            raise
        return tmp

    def _at_source(self, err: LectureError, written: Path) -> LectureError:
        """An error of the finishing step (Typst) names a line of pandoc's output in _build; blame
        the lecture's own line that became it, when one can be found."""
        where = FINISH_AT.search(err.message)
        if where and Path(where["file"]).parent.name == self.name:  # in a figure a cell made: that cell
            return self._at_figure_cell(err, Path(where["file"]).stem)
        if not where or Path(where["file"]).name != written.name:
            return err
        try:
            line = written.read_text(encoding="utf-8").split("\n")[int(where["line"]) - 1]
        except (OSError, IndexError, UnicodeDecodeError):
            return err
        found = source_line_of(line, self.execution.lecture)
        if found is None:
            return err
        headline = err.message.split("\n")[0].replace("typst could not compile the handout: ", "")
        try:  # the construct, as the author wrote it
            construct = " ".join(found[0].read_text(encoding="utf-8").split("\n")[found[1] - 1].split())
        except (OSError, IndexError, UnicodeDecodeError):
            construct = ""
        shown = f" `{construct[:80]}`" if construct else ""
        return LectureError(f"typst could not compile the handout from this line{shown}: {headline} (Typst's "
                            f"line {where['line']} of {written.name} was made from it)", found[0], found[1],
                            detail=err.message)

    def _at_figure_cell(self, err: LectureError, figure: str) -> LectureError:
        """Typst's error inside a figure (an SVG naming a URL …) blames the cell whose output it is,
        in one line; Typst's own text, which quotes the figure's source, is the detail."""
        notebook = self.execution.notebook
        for cell, figures in zip(notebook.cells, cell_figures(notebook)):
            if any(f.name == figure for f in figures):
                meta = cell.metadata.get("lecture", {})
                headline = err.message.split("\n")[0].replace("typst could not compile the handout: ", "")
                return LectureError(f"typst could not draw this cell's figure {figure} in the handout: {headline}",
                                    meta.get("file"), meta.get("line"), detail=err.message)
        return err

    def _filter_failure(self, stderr: str, fmt: Format) -> LectureError | None:
        """A lecture filter's refusal names the block by its id and a line of the markdown in _build;
        blame the lecture's own line that gives the block that id, when there is one."""
        found = FILTER_FAILED.search(stderr)
        if not found:
            return None
        message = f"lecture filter ({fmt.name}): {found['message']}"
        if found["id"]:
            written = re.compile("#" + re.escape(found["id"]) + r"(?![\w-])")
            for block in self.execution.lecture.blocks:
                if not isinstance(block, Markdown):  # ids are written in prose
                    continue
                match = written.search(block.text)
                if match:
                    line = block.line + block.text.count("\n", 0, match.start())
                    return LectureError(message, block.file, line)
        # Without an id: the text the refusal quotes (a formula, a block's first words), where the
        # prose holds it.
        quoted = re.search(r"\$(.+?)\$: |at \"([^\"☐☒]{4,}?)[\s☐☒\"]", found["message"])
        needle = (quoted[1] or quoted[2]).strip() if quoted else ""
        for block in self.execution.lecture.blocks if needle else ():
            if isinstance(block, Markdown) and needle in block.text:
                line = block.line + block.text.count("\n", 0, block.text.index(needle))
                return LectureError(message, block.file, line, detail=stderr.strip())
        return LectureError(message, self.execution.lecture.index, detail=stderr.strip())

    def _pandoc(self, source: Path, output: Path, fmt: Format) -> None:
        try:
            run = run_pandoc([str(source), *self.pandoc_args(fmt), "-o", str(output)], cwd=self.build,
                             start=self.children.run)
        except PandocError as err:
            fault = machine_fault(err.stderr)
            if fault:  # the disk, not the lecture: one line, not pandoc's backtrace
                raise LectureError(f"cannot write {output}: {fault}") from None
            raise self._filter_failure(err.stderr, fmt) or LectureError(
                f"pandoc could not write the {fmt.name} product:\n{err.stderr.strip() or err.message}",
                self.execution.lecture.index) from None
        # Warnings (an unresolved @fig- reference, a missing image) are the author's to see.
        self.warnings.extend(line for line in run.stderr.splitlines() if line.strip())


# util-linux's setpriv sets the child's parent-death signal, then runs the command itself.
DIE_WITH_PARENT = ["setpriv", "--pdeathsig", "KILL", "--"] if shutil.which("setpriv") else []


def swap_in(pairs: list[tuple[Path, Path]]) -> list[Path]:
    """Rename each (file aside, product) into place, all or none: when a later rename fails, the
    products already replaced get their old bytes back (kept as a hard link until the end)."""
    done: list[tuple[Path, Path | None]] = []  # (product, its old version or None)
    try:
        for tmp, target in pairs:
            old = None
            if target.is_file():
                old = target.with_name(f".{target.name}.{os.getpid()}.old.tmp")
                old.unlink(missing_ok=True)
                try:
                    os.link(target, old)
                except OSError:  # a file system without hard links
                    shutil.copy2(target, old)
            done.append((target, old))
            os.replace(tmp, target)
    except BaseException:
        for target, old in reversed(done[:-1] if done and not _replaced(done[-1], pairs) else done):
            with contextlib.suppress(OSError):
                if old is not None:
                    os.replace(old, target)
                else:
                    target.unlink()
        raise
    finally:
        for _target, old in done:
            with contextlib.suppress(OSError):
                if old is not None:
                    old.unlink(missing_ok=True)
    return [target for _tmp, target in pairs]


def _replaced(entry: tuple[Path, Path | None], pairs: list[tuple[Path, Path]]) -> bool:
    """Whether the last product was replaced (its file aside is gone) before the failure."""
    target = entry[0]
    tmp = next(tmp for tmp, t in pairs if t == target)
    return not tmp.exists()


# Typst's diagnostic: "┌─ _build/demo/demo.typ:12:5".
# A lecture filter's refusal (common.lua's C.fail): the message, and the block's id when it has one.
FILTER_FAILED = re.compile(r"^lecture filter: (?P<message>.*?)(?: \(#(?P<id>[^\s)]+)[^)\n]*\))?$", re.M)
FINISH_AT = re.compile(r"┌─ (?P<file>\S+?):(?P<line>\d+):(?P<column>\d+)")
_TYPST_WORDS = {"image", "emph", "strong", "figure", "width", "height", "block", "text", "link", "box",
                "caption", "kind", "supplement", "label", "heading", "level", "raw", "lang"}


def source_line_of(typ_line: str, lecture: Lecture) -> tuple[Path, int] | None:
    """(file, line) of the lecture source line that shares the most words (file names included)
    with a line of the generated Typst, or None when no line shares any."""
    words = {w for w in re.findall(r"[\w\u0980-\u09FF.-]{3,}", typ_line) if w.lower() not in _TYPST_WORDS}
    if not words:
        return None
    files = dict.fromkeys([lecture.index, *(getattr(block, "file", None) for block in lecture.blocks)])
    best, best_score = None, 0
    for file in files:
        if file is None:
            continue
        try:
            lines = Path(file).read_text(encoding="utf-8").split("\n")
        except (OSError, UnicodeDecodeError):
            continue
        for number, text in enumerate(lines, 1):
            score = sum(len(w) for w in words if w in text)
            if score > best_score:
                best, best_score = (Path(file), number), score
    return best


# What pandoc and Typst print when the machine, not the input, failed them.
MACHINE_FAULTS = re.compile(r"No space left on device|Read-only file system|Permission denied|Disk quota exceeded",
                            re.I)


def machine_fault(stderr: str) -> str | None:
    """The cause, when a child's error output says the disk failed it."""
    found = MACHINE_FAULTS.search(stderr or "")
    return found.group(0) if found else None


class Children:
    """The child processes of a write stage (pandoc, Typst), so that all of them can be stopped
    when one format fails or the user presses Ctrl-C."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: set[subprocess.Popen[str]] = set()
        self.stopped = False

    def run(self, argv: list[str], cwd: str | os.PathLike[str] | None, stdin: str | None = None,
            timeout: float | None = None) -> subprocess.CompletedProcess[str]:
        """Run argv to its end (or its time limit: TimeoutExpired); return a CompletedProcess with
        text output. The child is killed when this process dies, even by SIGKILL (no Typst left
        compiling for a render that is gone)."""
        with self.lock:
            if self.stopped:
                raise KeyboardInterrupt
            process = subprocess.Popen(DIE_WITH_PARENT + argv, cwd=cwd, stdin=None if stdin is None else subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
                                       errors="replace")
            self.running.add(process)
        try:
            out, err = process.communicate(stdin, timeout=timeout)
        except BaseException:
            process.kill()
            process.wait()
            raise
        finally:
            with self.lock:
                self.running.discard(process)
        return subprocess.CompletedProcess(argv, process.returncode, out, err)

    def stop(self) -> None:
        with self.lock:
            self.stopped = True
            for process in self.running:
                process.kill()
