"""The line scanner: a lecture's body (includes followed) into markdown runs and python cells, each
checked against the supported subset with its file and line.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from lecturekit import schema, yamlio
from lecturekit.errors import LectureError
from lecturekit.fsutil import read_source
from lecturekit.read.blocktypes import DIV_CLASSES, REQUIRED_PARENT
from lecturekit.read.claims import CODE_SPAN, INLINE_EXPR, Claim, Inline, claim_expressions, inline_expressions
from lecturekit.read.frontmatter import split_front_matter
from lecturekit.read.glossary import Glossary, glossary_path
from lecturekit.read.glossary import load as load_glossary
from lecturekit.yamlio import key_lines, yaml_error_line, yaml_error_text

# Cell options the renderer understands (Quarto spellings, and our own timeout and tolerance), and
# what each may hold: schemas/cell-options.yaml.
CELL_OPTIONS_SCHEMA = "cell-options"

# What one lecture may read: a course's lecture is a dozen sections of tens of kilobytes each.
MAX_INCLUDE_DEPTH = 8
MAX_INCLUDES = 200
MAX_LECTURE_BYTES = 10_000_000

FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})\s*(?P<info>.*?)\s*$")
EXEC_INFO = re.compile(r"^\{(?P<engine>[A-Za-z0-9_]+)(?P<rest>[^}]*)\}$")
DIV_OPEN = re.compile(r"^(?P<colons>:{3,})\s*(?P<attrs>\{[^}]*\}|[A-Za-z][\w-]*)\s*:*\s*$")
DIV_CLOSE = re.compile(r"^:{3,}\s*$")
INCLUDE = re.compile(r"^\{\{<\s*include\s+(?P<path>\S+)\s*>\}\}\s*$")
SHORTCODE = re.compile(r"\{\{<")
# `::: {.glossary terms="view stride"}`: the course glossary's entries the div lists (read/glossary.py).
GLOSSARY_TERMS = re.compile(r'(?:^|\s)terms="(?P<keys>[^"]*)"')
HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<text>.*?)\s*$")
HEADING_ID = re.compile(r"\{[^}]*#[\w:.-]+[^}]*\}\s*$")
CLASS_TOKEN = re.compile(r"(?:^|\s)\.([\w-]+)")
# A label names the cell's figure files (figures/<lecture>/<label>.svg) and its anchor: only names
# that are one plain file name and a valid id.
LABEL = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")
LABEL_RULE = "ASCII letters, digits, '-' and '_'"
# Markdown images `![caption](path)` (the notebook relinks them) and figure references `@fig-name` in prose.
IMAGE = re.compile(r"!\[(?:[^\]\\]|\\.)*\]\(\s*<?(?P<path>[^)\s>]+)")
FIG_REF = re.compile(r"(?<![\w@])@(?P<id>fig-[^\s\[\];,()]*?)(?=[.,;:!?।)\]]*(?:\s|$))")


@dataclass
class Markdown:
    text: str
    file: Path
    line: int
    # Parsed once here; the cache key, the kernel and the notebook writer read these records.
    inline: list[Inline] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)

    def line_of(self, needle: str) -> int:
        """Source line of the first line of this run that contains needle (else the run's first)."""
        lines = self.text.split("\n")
        return self.line + next((i for i, text in enumerate(lines) if needle in text), 0)


def markdown_block(text: str, file: Path, line: int) -> Markdown:
    """A prose run with its inline expressions and claims. ValueError: a malformed claim."""
    block = Markdown(text, file, line)
    block.inline = [Inline(expr, block.line_of(expr)) for expr in inline_expressions(text)]
    block.claims = [Claim(sentence, expr, block.line_of(expr)) for sentence, expr in claim_expressions(text)]
    return block


@dataclass
class Cell:
    code: str
    options: dict[str, Any]
    file: Path
    line: int  # line of the opening fence
    heading: str = ""  # nearest heading above, for reports

    @property
    def label(self) -> str | None:
        label: str | None = self.options.get("label")
        return label


# A lecture's body is a list of these, in document order.
Block = Markdown | Cell



def _load_options(text: str) -> Any:
    """'#|' options as YAML (yamlio.load: no anchors or aliases)."""
    return yamlio.load(text) or {}

def _number(value: Any) -> Any:
    """A string YAML 1.1 leaves unread as a number (`1e-6`), as the number; anything else as it is."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
    return value


class Scanner:
    """Line scanner in the manner of jupytext: markdown runs between executable cells."""

    def __init__(self, blocks: list[Block], project_root: Path):
        self.blocks = blocks  # the scan appends to it
        self.project_root = project_root
        self.heading = ""
        self.included = 0  # includes followed so far
        self.read_bytes = 0  # bytes of the sources read so far
        self.glossary: Glossary | None = None  # read when a div first names its terms

    @staticmethod
    def _relative(named: str, path: Path, lineno: int) -> str:
        if Path(named).is_absolute():
            raise LectureError(f"{named} is named by an absolute path; name it relative to this file (the "
                               "project must render wherever it lies)", path, lineno)
        return named

    def _inside_project(self, target: Path, name: str, path: Path, lineno: int | None) -> Path:
        if not target.is_relative_to(self.project_root):
            raise LectureError(f"{name} is outside the project ({self.project_root}); "
                               "a lecture may only use files inside it", path, lineno)
        return target

    def scan(self, text: str, path: Path, first_line: int, chain: tuple[Path, ...]) -> None:
        lines = text.split("\n")
        run: list[str] = []
        run_start: int | None = None
        divs: list[_Div] = []  # open fenced divs, innermost last
        closed: list[_Div] = []  # closed ones, in the order they closed (to find a ':::' that came too early)
        i = 0

        def flush() -> None:
            nonlocal run, run_start
            if run and run_start is not None and "".join(run).strip():
                text = "\n".join(run)
                # Leading blank lines would put the block's line above its first sentence.
                blank_lines = len(text) - len(text.lstrip("\n"))
                try:
                    block = markdown_block(text.strip("\n") + "\n", path, run_start + blank_lines)
                except ValueError as err:
                    offset = text[:text.find(".claim")].count("\n")
                    raise LectureError(str(err), path, run_start + offset) from None
                self.blocks.append(block)
            run, run_start = [], None

        while i < len(lines):
            line = lines[i]
            lineno = first_line + i
            fence = FENCE.match(line)
            if fence:
                info = fence["info"]
                end = _closing_fence(lines, i, fence["fence"])
                if end is None:
                    raise LectureError(f"code fence {fence['fence']} opened here is never closed", path, lineno)
                exec_info = EXEC_INFO.match(info)
                if exec_info:
                    if exec_info["engine"] != "python":
                        raise LectureError(f"only python cells are supported, not {{{exec_info['engine']}}}",
                                           path, lineno)
                    flush()
                    self.blocks.append(self._cell(lines[i + 1:end], path, lineno))
                else:  # a code block, or a raw block (```{=html}): read/markup.py judges what pandoc makes of it
                    if run_start is None:
                        run_start = lineno
                    run.extend(lines[i:end + 1])
                i = end + 1
                continue
            include = INCLUDE.match(line)
            if include:
                flush()
                target = self._inside_project((path.parent / self._relative(include["path"], path, lineno)).resolve(),
                                              include["path"],
                                              path, lineno)
                if target in chain:
                    raise LectureError(f"include cycle through {include['path']}", path, lineno)
                self._bound_include(len(chain), path, lineno)
                body = read_source(target, path, lineno)
                self._bound_bytes(body, path, lineno)
                meta, body, first = split_front_matter(body, target)
                self.scan(body, target, first, chain + (target,))
                i += 1
                continue
            if SHORTCODE.search(line):
                raise LectureError("only the {{< include >}} shortcode is supported", path, lineno)
            self._check_inline(line, path, lineno)
            opened = DIV_OPEN.match(line)
            if opened:
                div = _Div(opened["colons"], lineno, self._check_div(opened["attrs"], path, lineno))
                terms = GLOSSARY_TERMS.search(opened["attrs"])
                if terms and "glossary" in div.classes:
                    div.terms = terms["keys"].split()
                _check_nesting(div, divs, closed, path)
                divs.append(div)
            elif DIV_CLOSE.match(line):
                if not divs:
                    _stray_close(line.strip(), lineno, closed, path)
                div = divs.pop()
                div.closed_at, div.close_colons = lineno, line.strip()
                closed.append(div)
                if div.terms:
                    # The entries go in as a run of their own, blamed on the glossary file's lines.
                    flush()
                    self.blocks.extend(self._glossary_blocks(div.terms, path, div.line))
            heading = HEADING.match(line)
            if heading:
                if not HEADING_ID.search(heading["text"]):
                    raise LectureError("heading needs an explicit id, e.g. '## শিরোনাম {#sec-name}' "
                                       "(automatic ids drop Bengali vowel signs)", path, lineno)
                self.heading = HEADING_ID.sub("", heading["text"]).strip()
            if run_start is None:
                run_start = lineno
            run.append(line)
            i += 1
        if divs:
            raise LectureError("fenced div ':::' opened here is never closed", path, divs[-1].line)
        flush()

    def _glossary_blocks(self, keys: list[str], path: Path, lineno: int) -> list[Markdown]:
        """The course glossary's entries for `keys`, a prose run each at its line in the glossary
        file (a refusal of read/markup.py names that line). Data: nothing in it runs."""
        if self.glossary is None:
            self.glossary = load_glossary(glossary_path(self.project_root / "lectures"), path, lineno)
        blocks = []
        for entry in self.glossary.chosen(keys, path, lineno):
            try:
                block = markdown_block(entry.markdown, self.glossary.path, entry.line)
            except ValueError:  # a malformed claim
                block = Markdown(entry.markdown, self.glossary.path, entry.line, claims=[Claim("", "", 0)])
            if block.inline or block.claims or INLINE_EXPR.search(entry.markdown):
                raise LectureError(f"glossary entry '{entry.key}' holds an inline `{{python}}` expression or a "
                                   "claim; the glossary is text", self.glossary.path, entry.line)
            blocks.append(block)
        return blocks

    def _bound_include(self, depth: int, path: Path, lineno: int) -> None:
        """Includes are bounded: nested at most MAX_INCLUDE_DEPTH deep, at most MAX_INCLUDES in all
        (files that include the next one twice would be read 2^depth times)."""
        self.included += 1
        if depth > MAX_INCLUDE_DEPTH:
            raise LectureError(f"includes nested more than {MAX_INCLUDE_DEPTH} deep (index.qmd includes a "
                               "section, which may include a part: a chain this long is a mistake)", path, lineno)
        if self.included > MAX_INCLUDES:
            raise LectureError(f"more than {MAX_INCLUDES} includes in one lecture (the same file included "
                               "again and again?)", path, lineno)

    def _bound_bytes(self, text: str, path: Path, lineno: int) -> None:
        self.read_bytes += len(text.encode())
        if self.read_bytes > MAX_LECTURE_BYTES:
            raise LectureError(f"the lecture's sources hold more than {MAX_LECTURE_BYTES:,} bytes with their "
                               "includes (the same file included again and again?)", path, lineno)

    def _cell(self, body: list[str], path: Path, lineno: int) -> Cell:
        option_lines: list[str] = []
        for line in body:
            if line.startswith("#|"):
                option_lines.append(line[2:].lstrip() if line[2:3] == " " else line[2:])
            else:
                break
        code_lines = body[len(option_lines):]
        try:
            options = _load_options("\n".join(option_lines)) if option_lines else {}
        except yaml.YAMLError as err:
            raise LectureError(f"malformed '#|' cell options: {yaml_error_text(err)}", path,
                               lineno + 1 + yaml_error_line(err)) from None
        if not isinstance(options, dict):
            raise LectureError("'#|' cell options must be 'key: value' lines", path, lineno + 1)
        # Each option is blamed on its own '#|' line.
        lines = key_lines("\n".join(option_lines), first_line=lineno + 1)
        if isinstance(options.get("tolerance"), dict):
            # YAML reads 1e-6 (no decimal point) as a string; it is still a number.
            options["tolerance"] = {k: _number(v) if k in ("rel", "abs") else v
                                    for k, v in options["tolerance"].items()}
        label = options.get("label")
        if isinstance(label, str) and not LABEL.fullmatch(label):
            raise LectureError(f"cell label '{label}' may hold only {LABEL_RULE} (it names the cell's "
                               "figure files and its anchor)", path, lines.get(("label",), lineno + 1))
        schema.check(options, CELL_OPTIONS_SCHEMA, path, lines, what="cell option", line=lineno + 1)
        code = "\n".join(code_lines).strip("\n")
        if "file" in options:
            source = self._inside_project((path.parent / self._relative(options["file"], path, lineno)).resolve(),
                                          options["file"],
                                          path, lineno)
            if code.strip():
                raise LectureError("a cell with 'file:' must have no code of its own", path, lineno)
            code = read_source(source, path, lineno).strip("\n")
            self._bound_bytes(code, path, lineno)
        _check_line_numbers(options.get("code-line-numbers"), code, path, lines.get(("code-line-numbers",), lineno + 1))
        return Cell(code=code, options=options, file=path, line=lineno, heading=self.heading)

    @staticmethod
    def _check_inline(line: str, path: Path, lineno: int) -> None:
        for match in INLINE_EXPR.finditer(line):
            if match["engine"] != "python":
                raise LectureError(f"inline `{{{match['engine']}}}` expressions are not supported", path, lineno)

    @staticmethod
    def _check_div(attrs: str, path: Path, lineno: int) -> list[str]:
        if attrs.startswith("{"):
            classes: list[str] = CLASS_TOKEN.findall(attrs[1:-1])
        else:
            classes = [attrs]
        for cls in classes:
            if cls not in DIV_CLASSES:
                raise LectureError(f"div class '.{cls}' is outside the supported subset", path, lineno)
        return classes


def _check_line_numbers(spec: object, code: str, path: Path, lineno: int) -> None:
    """The lines `code-line-numbers` highlights are lines of the cell's code (a step of `1-999999999`
    would have the stepper walk a billion lines)."""
    if not isinstance(spec, str):
        return
    count = len(code.split("\n"))
    for step in spec.split("|"):
        for part in filter(None, step.split(",")):
            first, _dash, last = part.partition("-")
            low, high = int(first), int(last or first)
            if not 1 <= low <= high <= count:
                raise LectureError(f"'code-line-numbers: {spec}' names line{'s' if last else ''} {part}, but the cell's "
                                   f"code has lines 1 to {count} (a range goes from the lower line to the higher)",
                                   path, lineno)


@dataclass
class _Div:
    colons: str
    line: int
    classes: list[str]
    closed_at: int | None = None
    close_colons: str = ""
    terms: list[str] = field(default_factory=list)  # a .glossary div's concept keys

    def describe(self) -> str:
        return f"'{self.colons} {{.{' .'.join(self.classes)}}}' (line {self.line})" if self.classes else \
            f"the div opened at line {self.line}"


def _check_nesting(div: _Div, divs: list[_Div], closed: list[_Div], path: Path) -> None:
    """An .answer outside any .exercise usually means the exercise's ':::' came too early: blame
    that ':::', not the stray one the reader would otherwise be sent to at the end."""
    for cls in div.classes:
        parents = REQUIRED_PARENT.get(cls)
        if not parents or any(set(parents) & set(d.classes) for d in divs):
            continue
        wanted = " or ".join(f".{p}" for p in parents)
        early = next((d for d in reversed(closed) if set(parents) & set(d.classes)), None)
        if early is not None:
            raise LectureError(f"this ':::' closes {early.describe()} too early: its .{cls} at line {div.line} "
                               f"is left outside it (a .{cls} belongs inside a {wanted})", path, early.closed_at)
        raise LectureError(f"a .{cls} belongs inside a {wanted}", path, div.line)


def _stray_close(colons: str, lineno: int, closed: list[_Div], path: Path) -> None:
    """A ':::' with nothing to close: an earlier ':::' closed a div too early. When the author wrote
    the fences with distinct widths, the close narrower than its opening is that one."""
    early = next((d for d in reversed(closed) if len(d.close_colons) < len(d.colons)), None)
    if early is not None:
        raise LectureError(f"this '{early.close_colons}' closes {early.describe()} too early: the "
                           f"'{colons}' at line {lineno} is left with nothing to close", path, early.closed_at)
    hint = f" (the last div closed before it: {closed[-1].describe()}, closed at line {closed[-1].closed_at})" \
        if closed else ""
    raise LectureError(f"':::' closes a div that was never opened{hint}", path, lineno)


def _closing_fence(lines: list[str], start: int, fence: str) -> int | None:
    char, width = fence[0], len(fence)
    for j in range(start + 1, len(lines)):
        stripped = lines[j].strip()
        if stripped and set(stripped) == {char} and len(stripped) >= width:
            return j
    return None


def prose_lines(block: Markdown, openers: bool = False) -> Iterator[tuple[int, str]]:
    """(source line, text) of a markdown run's prose: code blocks left out (`openers`: but their
    opening fence lines, which may carry attributes), code spans blanked."""
    fence = None
    for offset, line in enumerate(block.text.split("\n")):
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened["fence"]
            if openers:
                yield block.line + offset, line
            continue
        if fence is not None:
            if line.strip() and set(line.strip()) == {fence[0]} and len(line.strip()) >= len(fence):
                fence = None
            continue
        yield block.line + offset, blank_code_spans(line)


def blank_code_spans(text: str) -> str:
    """Code spans as spaces, all but the closing backtick: what follows one (`` `x`{=html} ``,
    `` `x`{.a} ``) is still seen as following a code span."""
    return CODE_SPAN.sub(lambda m: " " * (len(m.group(0)) - 1) + "`", text)


def _check_figure_references(blocks: list[Block], labels: dict[str, Cell]) -> None:
    """Every `@fig-…` names a cell's figure (a Bengali case ending may follow: `@fig-tree-এ`)."""
    figures = {label for label in labels if label.startswith("fig-")}
    for block in blocks:
        if not isinstance(block, Markdown):
            continue
        for lineno, line in prose_lines(block):
            for match in FIG_REF.finditer(line):
                ref = match["id"]
                if ref in figures or any(ref.startswith(label + "-") for label in figures):
                    continue
                known = ", ".join(sorted(figures)) or "none"
                raise LectureError(f"@{ref} refers to no figure (the lecture's fig- labels: {known})",
                                   block.file, lineno)


def check_labels(blocks: list[Block]) -> None:
    """Cell labels are unique, and every `@fig-…` names a figure cell."""
    seen: dict[str, Cell] = {}
    for cell in (b for b in blocks if isinstance(b, Cell)):
        label = cell.label
        if label is None:
            continue
        if label in seen:
            first = seen[label]
            raise LectureError(f"duplicate cell label '{label}' (first used at {first.file}:{first.line})",
                               cell.file, cell.line, label)
        seen[label] = cell
    _check_figure_references(blocks, seen)
