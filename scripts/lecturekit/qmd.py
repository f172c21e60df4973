"""Read a lecture's Quarto sources into blocks: front matter, markdown runs and python cells.

Only the Quarto subset listed in the README is accepted. Anything else is a LectureError that
names the file and line, so an author never gets silently different output from the two renderers.
"""
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .errors import LectureError

# Cell options the renderer understands (Quarto spellings), and what each must hold.
CELL_OPTIONS = {
    "label": str,
    "echo": bool,
    "eval": bool,
    "output": bool,
    "error": bool,
    "include": bool,
    "fig-cap": str,
    "fig-alt": str,
    "code-line-numbers": (str, bool),
    "file": str,
    # Our own (Quarto keeps unknown cell options as metadata):
    "timeout": (int, float),  # seconds this cell may run
    "tolerance": (int, float, str, dict),  # numeric tolerance for the output check
}

# Div classes with a meaning in the subset: Quarto's own and the lecture filter's.
DIV_CLASSES = {
    "notes", "fragment", "incremental", "nonincremental", "columns", "column",
    "content-visible", "content-hidden", "smaller", "r-fit-text", "r-stack",
    "callout-note", "callout-tip", "callout-warning", "callout-important", "callout-caution",
    "stepper", "quiz", "explain", "exercise", "discussion", "answer", "remember", "glossary",
    "claim", "appendix", "scrollable",
}

FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})\s*(?P<info>.*?)\s*$")
EXEC_INFO = re.compile(r"^\{(?P<engine>[A-Za-z0-9_]+)(?P<rest>[^}]*)\}$")
DIV_OPEN = re.compile(r"^(?P<colons>:{3,})\s*(?P<attrs>\{[^}]*\}|[A-Za-z][\w-]*)\s*:*\s*$")
DIV_CLOSE = re.compile(r"^:{3,}\s*$")
INCLUDE = re.compile(r"^\{\{<\s*include\s+(?P<path>\S+)\s*>\}\}\s*$")
SHORTCODE = re.compile(r"\{\{<")
HEADING = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<text>.*?)\s*$")
HEADING_ID = re.compile(r"\{[^}]*#[\w:.-]+[^}]*\}\s*$")
INLINE_EXPR = re.compile(r"`\{(?P<engine>[A-Za-z0-9_]+)\}\s+(?P<expr>[^`]+)`")
CLASS_TOKEN = re.compile(r"(?:^|\s)\.([\w-]+)")


@dataclass
class Markdown:
    text: str
    file: Path
    line: int

    def line_of(self, needle):
        """Source line of the first line of this run that contains needle (else the run's first)."""
        lines = self.text.split("\n")
        return self.line + next((i for i, text in enumerate(lines) if needle in text), 0)


@dataclass
class Cell:
    code: str
    options: dict
    file: Path
    line: int  # line of the opening fence
    heading: str = ""  # nearest heading above, for reports

    @property
    def label(self):
        return self.options.get("label")


@dataclass
class Lecture:
    root: Path  # the lecture folder
    index: Path  # the .qmd that includes the sections
    meta: dict
    blocks: list = field(default_factory=list)

    @property
    def name(self):
        return self.root.name

    @property
    def cells(self):
        return [b for b in self.blocks if isinstance(b, Cell)]


def read_lecture(index: Path) -> Lecture:
    """Parse `index` (front matter + includes) into one flat list of blocks."""
    index = Path(index)
    text = _read(index, None, None)
    meta, body, first = split_front_matter(text, index)
    lecture = Lecture(root=index.parent, index=index, meta=meta)
    _Scanner(lecture).scan(body, index, first, chain=(index.resolve(),))
    _check_labels(lecture)
    return lecture


def split_front_matter(text, path):
    """Return (metadata, body, first body line number)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text, 1
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            try:
                meta = yaml.safe_load("\n".join(lines[1:i])) or {}
            except yaml.YAMLError as err:
                mark = getattr(err, "problem_mark", None)
                line = mark.line + 2 if mark else 2
                raise LectureError(f"malformed YAML front matter: {getattr(err, 'problem', err)}",
                                   path, line) from None
            if not isinstance(meta, dict):
                raise LectureError("front matter must be a YAML mapping", path, 2)
            return meta, "\n".join(lines[i + 1:]), i + 2
    raise LectureError("front matter opened with '---' is never closed", path, 1)


def _read(path, parent, line):
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LectureError(f"file not found: {path}", parent or path, line) from None
    except UnicodeDecodeError as err:
        raise LectureError(f"not UTF-8: {err}", path) from None


class _Scanner:
    """Line scanner in the manner of jupytext: markdown runs between executable cells."""

    def __init__(self, lecture):
        self.lecture = lecture
        self.heading = ""

    def scan(self, text, path, first_line, chain):
        lines = text.split("\n")
        run, run_start = [], None
        divs = []  # (colons, line) of open fenced divs
        i = 0

        def flush():
            nonlocal run, run_start
            if run and "".join(run).strip():
                text = "\n".join(run)
                try:
                    claim_expressions(text)
                except ValueError as err:
                    offset = text[:text.find(".claim")].count("\n")
                    raise LectureError(str(err), path, run_start + offset) from None
                # Leading blank lines would put the block's line above its first sentence.
                blank_lines = len(text) - len(text.lstrip("\n"))
                self.lecture.blocks.append(Markdown(text.strip("\n") + "\n", path, run_start + blank_lines))
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
                    self.lecture.blocks.append(self._cell(lines[i + 1:end], path, lineno))
                else:
                    if re.match(r"^\{=", info):
                        raise LectureError(f"raw blocks ({info}) are outside the supported subset", path, lineno)
                    if run_start is None:
                        run_start = lineno
                    run.extend(lines[i:end + 1])
                i = end + 1
                continue
            include = INCLUDE.match(line)
            if include:
                flush()
                target = (path.parent / include["path"]).resolve()
                if target in chain:
                    raise LectureError(f"include cycle through {include['path']}", path, lineno)
                body = _read(target, path, lineno)
                meta, body, first = split_front_matter(body, target)
                self.scan(body, target, first, chain + (target,))
                i += 1
                continue
            if SHORTCODE.search(line):
                raise LectureError("only the {{< include >}} shortcode is supported", path, lineno)
            self._check_inline(line, path, lineno)
            opened = DIV_OPEN.match(line)
            if opened:
                self._check_div(opened["attrs"], path, lineno)
                divs.append((opened["colons"], lineno))
            elif DIV_CLOSE.match(line):
                if not divs:
                    raise LectureError("':::' closes a div that was never opened", path, lineno)
                divs.pop()
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
            raise LectureError("fenced div ':::' opened here is never closed", path, divs[-1][1])
        flush()

    def _cell(self, body, path, lineno):
        option_lines = []
        for line in body:
            if line.startswith("#|"):
                option_lines.append(line[2:].lstrip() if line[2:3] == " " else line[2:])
            else:
                break
        code_lines = body[len(option_lines):]
        try:
            options = yaml.safe_load("\n".join(option_lines)) or {} if option_lines else {}
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            raise LectureError(f"malformed '#|' cell options: {getattr(err, 'problem', err)}", path,
                               lineno + 1 + (mark.line if mark else 0)) from None
        if not isinstance(options, dict):
            raise LectureError("'#|' cell options must be 'key: value' lines", path, lineno + 1)
        for key, value in options.items():
            kind = CELL_OPTIONS.get(key)
            if kind is None:
                raise LectureError(f"cell option '{key}' is outside the supported subset "
                                   f"({', '.join(sorted(CELL_OPTIONS))})", path, lineno + 1)
            if not isinstance(value, kind):
                raise LectureError(f"cell option '{key}' has the wrong type: {value!r}", path, lineno + 1)
        if isinstance(options.get("tolerance"), str):
            # YAML reads 1e-6 (no decimal point) as a string; it is still a number.
            try:
                options["tolerance"] = float(options["tolerance"])
            except ValueError:
                raise LectureError(f"cell option 'tolerance' must be a number or {{rel, abs}}: "
                                   f"{options['tolerance']!r}", path, lineno + 1) from None
        code = "\n".join(code_lines).strip("\n")
        if "file" in options:
            source = (path.parent / options["file"]).resolve()
            if code.strip():
                raise LectureError("a cell with 'file:' must have no code of its own", path, lineno)
            code = _read(source, path, lineno).strip("\n")
        return Cell(code=code, options=options, file=path, line=lineno, heading=self.heading)

    @staticmethod
    def _check_inline(line, path, lineno):
        for match in INLINE_EXPR.finditer(line):
            if match["engine"] != "python":
                raise LectureError(f"inline `{{{match['engine']}}}` expressions are not supported", path, lineno)

    @staticmethod
    def _check_div(attrs, path, lineno):
        if attrs.startswith("{"):
            classes = CLASS_TOKEN.findall(attrs[1:-1])
        else:
            classes = [attrs]
        for cls in classes:
            if cls not in DIV_CLASSES:
                raise LectureError(f"div class '.{cls}' is outside the supported subset", path, lineno)


def _closing_fence(lines, start, fence):
    char, width = fence[0], len(fence)
    for j in range(start + 1, len(lines)):
        stripped = lines[j].strip()
        if stripped and set(stripped) == {char} and len(stripped) >= width:
            return j
    return None


def _check_labels(lecture):
    seen = {}
    for cell in lecture.cells:
        label = cell.label
        if label is None:
            continue
        if label in seen:
            first = seen[label]
            raise LectureError(f"duplicate cell label '{label}' (first used at {first.file}:{first.line})",
                               cell.file, cell.line, label)
        seen[label] = cell


def inline_expressions(text):
    """The `{python} expr` expressions of a markdown run, in order."""
    return [m["expr"].strip() for m in INLINE_EXPR.finditer(text)]


def replace_inline(text, values):
    """Replace each inline expression, in order, by its executed value."""
    it = iter(values)
    return INLINE_EXPR.sub(lambda m: next(it), text)


# A prose interpretation: `[sentence]{.claim check="expr"}`; the check evaluates expr after execution.
CLAIM_ATTRS = re.compile(r"\{(?=(?:[^}\"]|\"[^\"]*\")*\.claim\b)(?P<attrs>(?:[^}\"]|\"[^\"]*\")*)\}")
CHECK_ATTR = re.compile(r"\bcheck=\"(?P<expr>[^\"]*)\"")
CODE_SPAN = re.compile(r"(`+)(?:.+?)\1", re.S)


def claim_expressions(text):
    """(sentence, expression) of every claim span in a markdown run, in order.

    Brackets are matched with nesting, and code spans (inline expressions included) are opaque,
    so `[x is `{python} a[0]`]{.claim ...}` keeps its whole sentence.
    """
    masked = CODE_SPAN.sub(lambda m: "\0" * len(m.group(0)), text)
    claims, opened = [], []
    for i, char in enumerate(masked):
        if char == "[":
            opened.append(i)
        elif char == "]" and opened:
            start = opened.pop()
            attrs = CLAIM_ATTRS.match(masked, i + 1)
            if attrs:
                check = CHECK_ATTR.search(text, attrs.start(), attrs.end())
                if check is None:
                    raise ValueError(f"claim without check=\"...\": {text[start:attrs.end()][:80]}")
                claims.append((text[start + 1:i], check["expr"]))
    if len(claims) != len(CLAIM_ATTRS.findall(masked)):
        raise ValueError("a {.claim} attribute is not attached to a [bracketed sentence]")
    return claims
