"""Read a lecture's Quarto sources into blocks: front matter, markdown runs and python cells.

Only the Quarto subset listed in the README is accepted. Anything else is a LectureError that
names the file and line, so an author never gets silently different output from the two renderers.
"""
import glob
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from lecturekit.errors import LectureError
from lecturekit.fsutil import read_source
from lecturekit.read.blocktypes import DIV_CLASSES, REQUIRED_PARENT
from lecturekit.yamlio import key_lines, yaml_error_line, yaml_error_text

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
    "fig-width": (int, float),  # inches
    "fig-height": (int, float),
    "code-line-numbers": (str, bool),
    "class-output": str,  # classes of the printed text, e.g. `python` for printed source
    "file": str,
    # Our own (Quarto keeps unknown cell options as metadata):
    "timeout": (int, float),  # seconds this cell may run
    "tolerance": (int, float, str, dict),  # numeric tolerance for the output check
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
# A label names the cell's figure files (figures/<lecture>/<label>.svg) and its anchor: only names
# that are one plain file name and a valid id.
LABEL = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")
LABEL_RULE = "ASCII letters, digits, '-' and '_'"
# Markdown images `![caption](path)` and figure references `@fig-name` in prose.
IMAGE = re.compile(r"!\[(?:[^\]\\]|\\.)*\]\(\s*<?(?P<path>[^)\s>]+)")
FIG_REF = re.compile(r"(?<![\w@])@(?P<id>fig-[^\s\[\];,()]*?)(?=[.,;:!?।)\]]*(?:\s|$))")
# Raw HTML in prose: a tag or comment pandoc would pass through to the slides (and drop from the handout).
RAW_HTML = re.compile(r"<!--|</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
AUTOLINK = re.compile(r"<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[^\s<>@]+@[^\s<>@]+)>")


@dataclass(frozen=True)
class Inline:
    """An inline `{python} expr` of the prose: the kernel prints its value into the sentence."""
    expr: str
    line: int


@dataclass(frozen=True)
class Claim:
    """`[sentence]{.claim check="expr"}`: the kernel evaluates expr, the check reports it when false."""
    sentence: str
    expr: str
    line: int


@dataclass
class Markdown:
    text: str
    file: Path
    line: int
    # Parsed once here; the cache key, the kernel and the notebook writer read these records.
    inline: list[Inline] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)

    def line_of(self, needle):
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
    meta_lines: dict = field(default_factory=dict)  # key path (tuple) -> line in index.qmd

    @property
    def name(self):
        return self.root.name

    @property
    def cells(self):
        return [b for b in self.blocks if isinstance(b, Cell)]


def read_lecture(index: Path, project_root: Path | None = None) -> Lecture:
    """Parse `index` (front matter + includes) into one flat list of blocks.

    `project_root`: includes and `file:` cells may not reach outside it (default: the nearest
    folder above the lecture with a `_quarto.yml`, else the lecture folder)."""
    index = Path(index)
    text = read_source(index)
    meta, body, first = split_front_matter(text, index)
    lecture = Lecture(root=index.parent, index=index, meta=meta, meta_lines=front_matter_lines(text))
    check_front_matter(lecture)
    root = Path(project_root).resolve() if project_root else _project_root(index.parent)
    _Scanner(lecture, root).scan(body, index, first, chain=(index.resolve(),))
    _check_labels(lecture)
    return lecture


# Top-level front-matter keys: those the products use, and Quarto's common document metadata
# (Quarto keeps any key as metadata, so a typo would otherwise vanish without a word).
FRONT_MATTER_KEYS = {
    # read by the handout template, the slides or the course page
    "title", "subtitle", "title-en", "course", "episode", "episodes", "module", "lang", "code",
    "format", "execute",
    # Quarto's own document metadata (names from Quarto 1.10's option schema)
    "author", "authors", "date", "date-format", "date-modified", "description", "abstract",
    "keywords", "subject", "categories", "institute", "affiliation", "copyright", "license",
    "citation", "bibliography", "csl", "jupyter", "engine", "filters", "toc", "toc-depth",
    "toc-title", "number-sections", "draft", "order", "image", "pagetitle", "title-prefix",
    "crossref", "lightbox", "metadata-files",
}


def front_matter_lines(text: str) -> dict[tuple, int]:
    """key_lines of a .qmd's front matter, as lines of the .qmd."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), len(lines))
    return key_lines("\n".join(lines[1:end]), first_line=2)


def check_front_matter(lecture: Lecture) -> None:
    """Unknown top-level keys are errors at their line (Quarto would keep a mistyped key as metadata
    nobody reads). `format:` is the write stage's: write/formats.py checks its names and options."""
    for key in lecture.meta:
        if key not in FRONT_MATTER_KEYS:
            raise LectureError(f"front-matter key '{key}' is neither used by the products nor a Quarto "
                               f"document option (typo?)", lecture.index, lecture.meta_lines.get((key,)))
    _check_meta_text(lecture.meta, (), lecture)


def _check_meta_text(value, key_path, lecture):
    """Front-matter text goes into both products as it is: an inline `{python}` there would run
    under Quarto only, and raw HTML would run in the deck only."""
    if isinstance(value, dict):
        for key, item in value.items():
            _check_meta_text(item, key_path + (str(key),), lecture)
    elif isinstance(value, list):
        for item in value:
            _check_meta_text(item, key_path, lecture)
    elif isinstance(value, str):
        line = next((lecture.meta_lines[key_path[:n]] for n in range(len(key_path), 0, -1)
                     if key_path[:n] in lecture.meta_lines), None)
        name = ": ".join(key_path)
        if INLINE_EXPR.search(value):
            raise LectureError(f"'{name}' holds an inline `{{python}}` expression; the front matter is not "
                               "executed (write the value, or put the sentence in the prose)", lecture.index, line)
        html = RAW_HTML.search(AUTOLINK.sub("", CODE_SPAN.sub("", value)))
        if html:
            raise LectureError(f"'{name}' holds raw HTML '{html.group(0)[:40]}', outside the supported subset",
                               lecture.index, line)



def _project_root(folder):
    folder = Path(folder).resolve()
    return next((f for f in (folder, *folder.parents) if (f / "_quarto.yml").exists()), folder)


def split_front_matter(text: str, path: Path) -> tuple[dict, str, int]:
    """Return (metadata, body, first body line number)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text, 1
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            try:
                meta = yaml.safe_load("\n".join(lines[1:i])) or {}
            except yaml.YAMLError as err:
                raise LectureError(f"malformed YAML front matter: {yaml_error_text(err)}",
                                   path, yaml_error_line(err) + 2) from None
            if not isinstance(meta, dict):
                raise LectureError("front matter must be a YAML mapping", path, 2)
            return meta, "\n".join(lines[i + 1:]), i + 2
    raise LectureError("front matter opened with '---' is never closed", path, 1)


class _Scanner:
    """Line scanner in the manner of jupytext: markdown runs between executable cells."""

    def __init__(self, lecture, project_root):
        self.lecture = lecture
        self.project_root = project_root
        self.heading = ""

    def _inside_project(self, target, name, path, lineno):
        if not target.is_relative_to(self.project_root):
            raise LectureError(f"{name} is outside the project ({self.project_root}); "
                               "a lecture may only use files inside it", path, lineno)
        return target

    def scan(self, text, path, first_line, chain):
        lines = text.split("\n")
        run, run_start = [], None
        divs = []  # open fenced divs, innermost last
        closed = []  # closed ones, in the order they closed (to find a ':::' that came too early)
        i = 0

        def flush():
            nonlocal run, run_start
            if run and "".join(run).strip():
                text = "\n".join(run)
                # Leading blank lines would put the block's line above its first sentence.
                blank_lines = len(text) - len(text.lstrip("\n"))
                try:
                    block = markdown_block(text.strip("\n") + "\n", path, run_start + blank_lines)
                except ValueError as err:
                    offset = text[:text.find(".claim")].count("\n")
                    raise LectureError(str(err), path, run_start + offset) from None
                self._check_prose(block, path)
                self.lecture.blocks.append(block)
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
                target = self._inside_project((path.parent / include["path"]).resolve(), include["path"],
                                              path, lineno)
                if target in chain:
                    raise LectureError(f"include cycle through {include['path']}", path, lineno)
                body = read_source(target, path, lineno)
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
                _check_nesting(div, divs, closed, path)
                divs.append(div)
            elif DIV_CLOSE.match(line):
                if not divs:
                    _stray_close(line.strip(), lineno, closed, path)
                div = divs.pop()
                div.closed_at, div.close_colons = lineno, line.strip()
                closed.append(div)
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
            raise LectureError(f"malformed '#|' cell options: {yaml_error_text(err)}", path,
                               lineno + 1 + yaml_error_line(err)) from None
        if not isinstance(options, dict):
            raise LectureError("'#|' cell options must be 'key: value' lines", path, lineno + 1)
        # Each option is blamed on its own '#|' line.
        lines = key_lines("\n".join(option_lines), first_line=lineno + 1)
        for key, value in options.items():
            at = lines.get((str(key),), lineno + 1)
            kind = CELL_OPTIONS.get(key)
            if kind is None:
                raise LectureError(f"cell option '{key}' is outside the supported subset "
                                   f"({', '.join(sorted(CELL_OPTIONS))})", path, at)
            allowed = kind if isinstance(kind, tuple) else (kind,)
            if not isinstance(value, kind) or (isinstance(value, bool) and bool not in allowed):
                raise LectureError(f"cell option '{key}' has the wrong type: {value!r}", path, at)
        label = options.get("label")
        if label is not None and not LABEL.fullmatch(label):
            raise LectureError(f"cell label '{label}' may hold only {LABEL_RULE} (it names the cell's "
                               "figure files and its anchor)", path, lines.get(("label",), lineno + 1))
        if isinstance(options.get("tolerance"), str):
            # YAML reads 1e-6 (no decimal point) as a string; it is still a number.
            try:
                options["tolerance"] = float(options["tolerance"])
            except ValueError:
                raise LectureError(f"cell option 'tolerance' must be a number or {{rel, abs}}: "
                                   f"{options['tolerance']!r}", path, lines.get(("tolerance",), lineno + 1)) from None
        code = "\n".join(code_lines).strip("\n")
        if "file" in options:
            source = self._inside_project((path.parent / options["file"]).resolve(), options["file"],
                                          path, lineno)
            if code.strip():
                raise LectureError("a cell with 'file:' must have no code of its own", path, lineno)
            code = read_source(source, path, lineno).strip("\n")
        return Cell(code=code, options=options, file=path, line=lineno, heading=self.heading)

    def _check_prose(self, block, path):
        """Images stay inside the project; raw HTML is refused (the deck would run it, the handout
        drop it)."""
        for lineno, line in prose_lines(block):
            for match in IMAGE.finditer(line):
                self._check_image(match["path"], path, lineno)
            html = RAW_HTML.search(AUTOLINK.sub("", line))
            if html:
                raise LectureError(f"raw HTML '{html.group(0)[:40]}' in prose is outside the supported subset "
                                   "(write markdown; to show the characters, put them in `code`)", path, lineno)

    def _check_image(self, target, path, lineno):
        from urllib.parse import unquote, urlparse
        if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", target) and not target.startswith("file:"):
            return  # a URL, not a file of the machine
        name = unquote(urlparse(target).path if target.startswith("file:") else target.split("#")[0])
        folder = path.parent
        candidate = Path(name) if Path(name).is_absolute() else folder / name
        # The image itself and, for a name without suffix, the files the formats pick (.svg, .pdf …).
        for found in [candidate, *candidate.parent.glob(glob.escape(candidate.name) + ".*")] if candidate.parent.is_dir() else [candidate]:
            self._inside_project(found.resolve(), f"image {target}", path, lineno)

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
        return classes


@dataclass
class _Div:
    colons: str
    line: int
    classes: list
    closed_at: int | None = None
    close_colons: str = ""

    def describe(self):
        return f"'{self.colons} {{.{' .'.join(self.classes)}}}' (line {self.line})" if self.classes else \
            f"the div opened at line {self.line}"


def _check_nesting(div, divs, closed, path):
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


def _stray_close(colons, lineno, closed, path):
    """A ':::' with nothing to close: an earlier ':::' closed a div too early. When the author wrote
    the fences with distinct widths, the close narrower than its opening is that one."""
    early = next((d for d in reversed(closed) if len(d.close_colons) < len(d.colons)), None)
    if early is not None:
        raise LectureError(f"this '{early.close_colons}' closes {early.describe()} too early: the "
                           f"'{colons}' at line {lineno} is left with nothing to close", path, early.closed_at)
    hint = f" (the last div closed before it: {closed[-1].describe()}, closed at line {closed[-1].closed_at})" \
        if closed else ""
    raise LectureError(f"':::' closes a div that was never opened{hint}", path, lineno)


def _closing_fence(lines, start, fence):
    char, width = fence[0], len(fence)
    for j in range(start + 1, len(lines)):
        stripped = lines[j].strip()
        if stripped and set(stripped) == {char} and len(stripped) >= width:
            return j
    return None


def prose_lines(block):
    """(source line, text) of a markdown run's prose: code blocks left out, code spans blanked."""
    fence = None
    for offset, line in enumerate(block.text.split("\n")):
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened["fence"]
            continue
        if fence is not None:
            if line.strip() and set(line.strip()) == {fence[0]} and len(line.strip()) >= len(fence):
                fence = None
            continue
        yield block.line + offset, CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)


def _check_figure_references(lecture, labels):
    """Every `@fig-…` names a cell's figure (a Bengali case ending may follow: `@fig-tree-এ`)."""
    figures = {label for label in labels if label.startswith("fig-")}
    for block in lecture.blocks:
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
    _check_figure_references(lecture, seen)


def inline_expressions(text: str) -> list[str]:
    """The `{python} expr` expressions of a markdown run, in order."""
    return [m["expr"].strip() for m in INLINE_EXPR.finditer(text)]


def replace_inline(text: str, values: list[str]) -> str:
    """Replace each inline expression, in order, by its executed value."""
    it = iter(values)
    return INLINE_EXPR.sub(lambda m: next(it), text)


# A prose interpretation: `[sentence]{.claim check="expr"}`; the check evaluates expr after execution.
CLAIM_ATTRS = re.compile(r"\{(?=(?:[^}\"]|\"[^\"]*\")*\.claim\b)(?P<attrs>(?:[^}\"]|\"[^\"]*\")*)\}")
CHECK_ATTR = re.compile(r"\bcheck=\"(?P<expr>[^\"]*)\"")
CODE_SPAN = re.compile(r"(`+)(?:.+?)\1", re.S)


def claim_expressions(text: str) -> list[tuple[str, str]]:
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
