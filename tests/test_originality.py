"""Our wording is our own: no sentence and no code of a lecture repeats the seed page.

The seed page (`../shared/seed/` beside the project, one text file) gives lecture 09 its facts,
experiments and teaching order; its sentences, tables, question stems, summaries and code stay its
own. Every lecture folder (and the course code under `code/`) is compared with it:

- Text: prose, speaker notes, headings, callout titles, captions (`fig-cap`, `fig-alt`), table
  cells, list items and quiz options, the front matter, and in code the string literals (what it
  prints) and comments. A paragraph's wrapped lines are joined, then split into sentences on
  `।`, `?`, `!`, `. ` and the ends of lines a reader sees as separate (table cells, list items,
  headings). Each sentence is split again into clauses: at a colon or semicolon that ends a
  phrase, at an em dash and at a line end a reader sees (a line a string prints). Words are
  compared lower-cased with markdown marks and edge punctuation dropped; every number, every run
  of numbers and every inline `` `{python} expr` `` becomes the one wildcard `#`, so writing an
  expression where the seed has a number hides nothing.
- A sentence is a copy of a seed sentence when they share at least MIN_WORDS words in the same
  order (longest common subsequence) covering at least MIN_COVER of the shorter one's words (both
  directions of paraphrase: ours shortened or the seed's padded), or one unbroken run of at least
  MIN_WORDS words. A clause is a copy of a seed clause by the same rule: a seed clause joined to
  words of ours is too small a part of the sentence to be caught as a sentence, but all of a clause.
- Code (```` ```{python} ```` cells and `.py` files): lines are compared after every name and
  literal is normalised (torch/numpy API names kept), comments and blank lines dropped; MIN_LINES
  consecutive identical lines with the seed's code is a copy.

ALLOWED holds what must stay as it is, each with its reason: it is folded into one token on both
sides, so the words around it are still compared. A missing seed page is a failure, not a skip.
`COURSE_SEED_DIR` names another seed folder (a checkout that does not lie beside `shared/`).
"""
from __future__ import annotations

import builtins
import io
import keyword
import os
import re
import shutil
import tokenize
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEED_DIR = Path(os.environ.get("COURSE_SEED_DIR") or ROOT.parent / "shared" / "seed")
SEED = SEED_DIR / "lecture-09-nn-module.txt"
SEED_LECTURE = ROOT / "lectures" / "09-nn-module"
MIN_WORDS = 8
MIN_COVER = 0.6
MIN_LINES = 4

# What must stay as it is: (text, why). Each is folded into one token on both sides.
ALLOWED = [
    ("Building Models with nn.Module — Registration, nn.Linear, Parameter Counts, Buffers, "
     "state_dict and train/eval",
     "the episode's English title, a name (index.qmd's title-en)"),
    ("Expected all tensors to be on the same device",
     "torch's own error message, quoted as torch prints it"),
    ("cannot assign module before Module.__init__() call",
     "torch's own error message, quoted as torch prints it"),
    ("Weights only load failed",
     "torch's own error message, quoted as torch prints it"),
]

# ---- words ----------------------------------------------------------------------------------------

INLINE = re.compile(r"`\{python\}[^`\n]*`")
CLAIM_CHECK = re.compile(r'\s*check="[^"]*"')
ATTRS = re.compile(r"\{[#.][^{}]*\}")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
NUMBER = re.compile(r"[−+-]?[0-9০-৯]+(?:[.,][0-9০-৯]+)*")
EDGE = "`*_\"'“”‘’()[]{}<>,;:|.…—–-!?।·→=≈"
SENTENCE_END = re.compile(r"(?<=[।?!])|(?<=\.)(?=\s)")
# Inside a sentence, a clause ends at a colon or semicolon that ends a phrase, at an em dash and at a
# line end a reader sees (a printed line, a hard break): a copied clause joined to words of our own
# is compared on its own.
# A line end counts both ways: a string's wrapped source lines may be one printed line.
CLAUSE_END = re.compile(r"[:;](?=\s|$)|—|\n")
PHRASE_END = re.compile(r"[:;](?=\s|$)|—")
WILD = "#"


def words(text: str) -> list[str]:
    """The words of a sentence as compared: marks and edge punctuation dropped, numbers → # (a run
    of numbers, such as a printed list, one #)."""
    text = INLINE.sub(WILD, text)
    out = []
    for raw in text.split():
        word = NUMBER.sub(WILD, raw.strip(EDGE)).strip(EDGE).lower()
        word = word.replace("`", "").replace("*", "")
        if word and any(ch.isalnum() or ch == WILD for ch in word):
            if not (word == WILD and out and out[-1] == WILD):     # a list of numbers is one value
                out.append(word)
    return out


def _phrase(text: str) -> list[str]:
    return words(text)


FACTS = [_phrase(text) for text, _ in ALLOWED]


def fold_facts(toks: list[str]) -> list[str]:
    """Each allowed text becomes one token ⟨fact i⟩."""
    out, i = [], 0
    while i < len(toks):
        for k, fact in enumerate(FACTS):
            if fact and toks[i:i + len(fact)] == fact:
                out.append(f"⟨fact {k}⟩")
                i += len(fact)
                break
        else:
            out.append(toks[i])
            i += 1
    return out


# ---- sentences of our sources and of the seed ------------------------------------------------------

@dataclass(frozen=True)
class Sentence:
    where: str          # file:line
    text: str
    words: tuple
    clauses: tuple = ()     # its clauses of MIN_WORDS or more, when it has more than one clause
    split: bool = False


@dataclass
class Unit:
    """A stretch of text a reader sees as one: a paragraph, a list item, a table cell, a string.

    Line ends inside it ("\\n") are ones a reader sees (lines a string prints, a hard break); a
    paragraph's wrapped source lines are joined with spaces."""
    path: Path
    line: int
    text: str


def _record(where: str, text: str) -> Sentence | None:
    toks = fold_facts(words(text))
    if len(toks) < MIN_WORDS:
        return None
    return Sentence(where, " ".join(text.split()), tuple(toks))


def sentences_of(units: list[Unit], root: Path) -> list[Sentence]:
    """Each unit's sentences, each with its clauses (pieces too short to share MIN_WORDS dropped)."""
    out = []
    for unit in units:
        rel = unit.path.relative_to(root) if unit.path.is_relative_to(root) else unit.path
        where = f"{rel}:{unit.line}"
        for piece in SENTENCE_END.split(INLINE.sub(WILD, unit.text)):
            sentence = _record(where, piece)
            if sentence is None:
                continue
            parts = CLAUSE_END.split(piece)
            if "\n" in piece:
                parts += PHRASE_END.split(piece)
            if len(parts) > 1:
                records = (_record(where, part) for part in parts)
                clauses = tuple({c.words: c for c in records if c}.values())
                sentence = Sentence(where, sentence.text, sentence.words, clauses, split=True)
            out.append(sentence)
    return out


def clauses_of(sentences: list[Sentence]) -> list[Sentence]:
    """Every clause: a sentence's pieces, or the sentence itself when it is one clause."""
    return [c for s in sentences for c in (s.clauses if s.split else (s,))]


FENCE = re.compile(r"^\s*(```+|~~~+)\s*(\{?[\w-]*)")
DIV = re.compile(r"^\s*:::+\s*(.*)$")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
HEADING = re.compile(r"^#{1,6}\s+")
TITLE_ATTR = re.compile(r'\b(?:title|fig-cap|fig-alt)="([^"]*)"')
CELL_CAPTION = re.compile(r"^\s*#\|\s*(?:fig-cap|fig-alt|tbl-cap):\s*(.*)$")


def clean_markdown(line: str) -> str:
    line = CLAIM_CHECK.sub("", line)
    line = LINK.sub(r"\1", line)
    line = ATTRS.sub(" ", line)
    return line


BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)]|\(\w+\))\s+")


def string_units(body: str, first_line: int, path: Path) -> list[Unit]:
    """A string or comment: its lines joined (a line end kept, as one it prints), a blank line or a
    bullet starts a new unit."""
    units: list[Unit] = []
    for offset, line in enumerate(body.split("\n")):
        if not line.strip():
            units.append(Unit(path, first_line + offset + 1, ""))
        elif BULLET.match(line) or not units:
            units.append(Unit(path, first_line + offset, BULLET.sub("", line)))
        else:
            units[-1].text += "\n" + line
    return [u for u in units if u.text.strip()]


def python_units(code: str, first_line: int, path: Path) -> list[Unit]:
    """String literals (f-string fields as wildcards) and comments: what code prints or says."""
    units = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.STRING:
                body = re.sub(r"^[A-Za-z]*(\"\"\"|'''|\"|')", "", tok.string)
                body = re.sub(r"(\"\"\"|'''|\"|')$", "", body)
                body = re.sub(r"\{[^{}]*\}", WILD, body).replace("\\n", "\n")   # a printed line end
                units += string_units(body, first_line + tok.start[0] - 1, path)
            elif tok.type == tokenize.COMMENT and not tok.string.startswith("#|"):
                units.append(Unit(path, first_line + tok.start[0] - 1, tok.string.lstrip("#")))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        units.append(Unit(path, first_line, code))
    return units


def qmd_units(path: Path) -> tuple[list[Unit], list[tuple[int, str]]]:
    """A .qmd file's text units, and its Python code as (line, text) pairs."""
    units: list[Unit] = []
    code: list[tuple[int, str]] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    current: Unit | None = None

    def close():
        nonlocal current
        if current is not None and current.text.strip():
            units.append(current)
        current = None

    fence, fence_lang, cell, cell_start = None, "", [], 0
    for number, raw in enumerate(lines, 1):
        if fence is not None:
            if raw.strip().startswith(fence) and raw.strip().strip(fence[0]) == "":
                if fence_lang == "python":
                    units.extend(python_units("\n".join(cell) + "\n", cell_start, path))
                fence = None
                continue
            if fence_lang == "python":
                caption = CELL_CAPTION.match(raw)
                if caption:
                    units.append(Unit(path, number, caption.group(1).strip("\"'")))
                if raw.lstrip().startswith("#|"):
                    cell.append("")
                    continue
                cell.append(raw)
                code.append((number, raw))
            else:
                units.append(Unit(path, number, raw))       # a shell line, a printed block
            continue
        opening = FENCE.match(raw)
        if opening:
            close()
            fence = opening.group(1)
            fence_lang = opening.group(2).strip("{}").lower()
            cell, cell_start = [], number + 1
            continue
        stripped = raw.strip()
        if not stripped or stripped == "---" or stripped == ". . ." or stripped.startswith("{{<"):
            close()
            continue
        div = DIV.match(raw)
        if div:
            close()
            for title in TITLE_ATTR.findall(div.group(1)):
                units.append(Unit(path, number, title))
            continue
        text = clean_markdown(raw)
        for title in TITLE_ATTR.findall(raw):
            units.append(Unit(path, number, title))
        if stripped.startswith("|"):
            close()
            if not re.fullmatch(r"\|[\s:|-]+\|?", stripped):
                for cell_text in text.strip().strip("|").split("|"):
                    units.append(Unit(path, number, cell_text))
            continue
        if HEADING.match(stripped) or LIST_ITEM.match(raw) or re.match(r"^[\w-]+:\s", raw):
            close()
            current = Unit(path, number, HEADING.sub("", LIST_ITEM.sub("", text, count=1)))
            if HEADING.match(stripped):
                close()
            continue
        if current is None:
            current = Unit(path, number, text)
        elif current.text.endswith("\\"):                   # a hard line break
            current.text = current.text[:-1] + "\n" + text
        else:
            current.text += " " + text
    close()
    return units, code


def py_units(path: Path) -> tuple[list[Unit], list[tuple[int, str]]]:
    text = path.read_text(encoding="utf-8")
    return python_units(text, 1, path), list(enumerate(text.splitlines(), 1))


def sources_of(target: Path) -> list[Path]:
    if target.suffix in (".qmd", ".py"):
        return [target]
    return sorted(target.glob("**/*.qmd")) + sorted(target.glob("**/*.py"))


def seed_sentences(seed_text: str) -> list[Sentence]:
    units = [Unit(SEED, n, line) for n, line in enumerate(seed_text.splitlines(), 1)]
    return sentences_of(units, SEED.parent)


# ---- comparing sentences ----------------------------------------------------------------------------

def lcs(a: tuple, b: tuple) -> int:
    """Length of the longest common subsequence: shared words in the same order."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[-1]))
        prev = cur
    return prev[-1]


def longest_run(a: tuple, b: tuple) -> int:
    """Length of the longest unbroken run of words both share."""
    best, prev = 0, [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            if x == y:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


def verdict(ours: tuple, seed: tuple, level: str = "sentence") -> str | None:
    run = longest_run(ours, seed)
    if run >= MIN_WORDS:
        return f"an unbroken run of {run} words"
    common = lcs(ours, seed)
    shorter = min(len(ours), len(seed))
    if common >= MIN_WORDS and common >= MIN_COVER * shorter:
        return f"{common} words in the seed's order, {common / shorter:.0%} of the shorter {level}"
    return None


class SeedIndex:
    """Seed sentences (or clauses) by word: only those sharing MIN_WORDS words (repeats counted,
    as the subsequence counts them) are compared."""

    def __init__(self, pieces: list[Sentence], level: str):
        self.pieces, self.level = pieces, level
        self.index: dict[str, list[tuple[int, int]]] = {}
        for k, piece in enumerate(pieces):
            for w, n in Counter(piece.words).items():
                self.index.setdefault(w, []).append((k, n))

    def copy_of(self, piece: Sentence) -> str | None:
        """The first seed piece `piece` copies, as a report, or None."""
        shared: Counter[int] = Counter()
        for w, n in Counter(piece.words).items():
            for k, m in self.index.get(w, ()):
                shared[k] += min(n, m)
        for k, common in shared.items():
            if common < MIN_WORDS:          # too few words in common for either rule
                continue
            why = verdict(piece.words, self.pieces[k].words, self.level)
            if why:
                return (f"{piece.where}: {self.level}: {why}\n    ours: {piece.text[:160]}\n"
                        f"    seed: {self.pieces[k].text[:160]}")
        return None


_INDEXES: dict[int, tuple[list[Sentence], SeedIndex, SeedIndex]] = {}


def seed_indexes(seed: list[Sentence]) -> tuple[SeedIndex, SeedIndex]:
    """The seed's sentence and clause indexes, built once per list of seed sentences."""
    if id(seed) not in _INDEXES:            # the list is kept with them, so its id stays its own
        _INDEXES[id(seed)] = (seed, SeedIndex(seed, "sentence"), SeedIndex(clauses_of(seed), "clause"))
    return _INDEXES[id(seed)][1:]


def sentence_copies(ours: list[Sentence], seed: list[Sentence]) -> list[str]:
    """Each of our sentences that copies a seed sentence; else each of its clauses that copies a
    seed clause (a copied clause inside a longer sentence of ours)."""
    by_sentence, by_clause = seed_indexes(seed)
    found = []
    for sentence in ours:
        copy = by_sentence.copy_of(sentence)
        if copy:
            found.append(copy)
            continue
        reported: list[str] = []
        for clause in clauses_of([sentence]):      # line-end pieces first, then the joined lines
            if any(text in clause.text for text in reported):
                continue                            # the same copy, seen in a longer piece
            copy = by_clause.copy_of(clause)
            if copy:
                found.append(copy)
                reported.append(clause.text)
    return found


# ---- comparing code ---------------------------------------------------------------------------------

# Names kept as they are: the libraries' own API is not ours to rename.
MODULES = {"torch", "nn", "np", "numpy", "F", "json", "pickle", "inspect", "math", "optim"}
BUILTIN = set(dir(builtins)) | {"self"}


def normalise_line(line: str) -> str | None:
    """A code line with names as v and literals as L (API names after torch./nn./np. kept)."""
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        toks = None
    if toks is None:
        return None
    out, after_module = [], False
    for tok in toks:
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                        tokenize.DEDENT, tokenize.ENDMARKER):
            continue
        if tok.type == tokenize.NAME:
            name = tok.string
            if keyword.iskeyword(name) or name in MODULES or name in BUILTIN or after_module:
                out.append(name)
            else:
                out.append("v")
            after_module = False
            continue
        if tok.type in (tokenize.NUMBER, tokenize.STRING):
            out.append("L")
        elif tok.type == tokenize.ERRORTOKEN and not tok.string.strip():
            continue
        else:
            out.append(tok.string)
        after_module = tok.string == "." and len(out) >= 2 and out[-2] in MODULES
    text = " ".join(out)
    return text or None


# Lines every module or script has (imports, a Module's class line, `def f(self, x):`, the
# super() call, a bare return): skipped, so they neither make a copy nor hide one.
BOILERPLATE = re.compile(r"^(import .*|from .* import .*|class v \( nn \. Module \) :|"
                         r"def v \( (self|v)( , (self|v))* \) :|super \( \) \. v \( [v ,]* \)|"
                         r"return v|try :|else :)$")


def code_lines(pairs: list[tuple[int, str]]) -> list[tuple[int, str]]:
    out = []
    for number, raw in pairs:
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        norm = normalise_line(raw)
        if norm and not BOILERPLATE.match(norm):
            out.append((number, norm))
    return out


SEED_CODE_START = re.compile(r"^(import |from \w+ import |class \w+|def \w+\(|\s*[\w.\[\]]+ = |\s*print\(|"
                             r"\s*(for|with|try|return|if) |\s+\S)")


def seed_code(seed_text: str) -> list[tuple[int, str]]:
    """The seed's lines that read as Python (ASCII outside strings and comments)."""
    out = []
    for number, raw in enumerate(seed_text.splitlines(), 1):
        bare = re.sub(r"#.*$", "", re.sub(r"(\"[^\"]*\"|'[^']*')", "''", raw))
        if not bare.strip() or not bare.isascii() or not SEED_CODE_START.match(raw):
            continue
        out.append((number, raw))
    return code_lines(out)


def code_copies(ours: list[tuple[int, str]], seed: list[tuple[int, str]], where: str) -> list[str]:
    seed_norm = [n for _, n in seed]
    windows = {tuple(seed_norm[i:i + MIN_LINES]) for i in range(len(seed_norm) - MIN_LINES + 1)}
    found, i = [], 0
    norm = [n for _, n in ours]
    while i <= len(norm) - MIN_LINES:
        if tuple(norm[i:i + MIN_LINES]) in windows:
            j = i + MIN_LINES
            while j < len(norm) and tuple(norm[j - MIN_LINES + 1:j + 1]) in windows:
                j += 1
            found.append(f"{where}:{ours[i][0]}–{ours[j - 1][0]}: {j - i} lines as in the seed's code "
                         f"(names and literals normalised)")
            i = j
        else:
            i += 1
    return found


# ---- the check --------------------------------------------------------------------------------------

def read_seed(seed: Path = SEED) -> str:
    if not seed.is_file():
        pytest.fail(f"the seed page is missing: {seed} (it lies in ../shared/seed/ beside the project; "
                    "COURSE_SEED_DIR names another folder). Originality cannot be checked without it.",
                    pytrace=False)
    return seed.read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def seed_records(seed_text: str):
    return seed_sentences(seed_text), seed_code(seed_text)


def copies_in(target: Path, seed_text: str, root: Path = ROOT) -> list[str]:
    """Every sentence and code run of `target` (a folder or a file) that copies the seed."""
    seed_s, seed_c = seed_records(seed_text)
    found = []
    for path in sources_of(target):
        units, code = (py_units if path.suffix == ".py" else qmd_units)(path)
        found += sentence_copies(sentences_of(units, root), seed_s)
        rel = path.relative_to(root) if path.is_relative_to(root) else path
        found += code_copies(code_lines(code), seed_c, str(rel))
    return found


# Every folder under lectures/ with a source in it (one still without its index.qmd too), and the code.
TARGETS = sorted(p for p in (ROOT / "lectures").iterdir() if p.is_dir() and any(p.rglob("*.qmd"))) + [ROOT / "code"]


@pytest.mark.parametrize("target", TARGETS, ids=[p.name for p in TARGETS])
def test_no_sentence_or_code_copies_the_seed(target):
    found = copies_in(target, read_seed())
    assert not found, f"{len(found)} copies of the seed page in {target.name}:\n" + "\n".join(found)


def test_every_allowed_text_is_in_the_seed_and_in_our_sources():
    seed = words(read_seed())
    ours = [words(p.read_text(encoding="utf-8")) for t in TARGETS for p in sources_of(t)]

    def occurs(fact, toks):
        return any(toks[i:i + len(fact)] == fact for i in range(len(toks) - len(fact) + 1))

    for (text, _), fact in zip(ALLOWED, FACTS):
        assert occurs(fact, seed), f"not in the seed, so not needed: {text}"
        assert any(occurs(fact, toks) for toks in ours), f"not in our sources, so not needed: {text}"


# ---- proofs: the check catches what it guards --------------------------------------------------------

# A seed sentence (section 6) and the seed's exercise-3 class, to be put back into a copy.
SEED_SENTENCE = "যে buffer সেভ করার দরকার নেই"
SEED_CLASS_START = "class M(nn.Module):"
SEED_NUMBER_SENTENCE = "এই পর্বের ডেমোতে সরলতার জন্য পুরো"
SEED_CLAUSE = "training-এ gradient আর optimizer-এর"


def seed_line_with(seed_text: str, piece: str) -> str:
    return next(line for line in seed_text.splitlines() if piece in line)


@pytest.fixture
def lecture_copy(tmp_path):
    """A copy of lecture 09 that passes the check; each proof puts one copy back into it."""
    copy = tmp_path / "lectures" / "09-nn-module"
    shutil.copytree(SEED_LECTURE, copy)
    return tmp_path, copy


PUT_BACK = "_06-buffers.qmd"


def put_back(copy: Path, text: str) -> int:
    """Append `text` to a section of the copy; return the line it starts at."""
    target = copy / PUT_BACK
    lines = target.read_text(encoding="utf-8").splitlines()
    start = len(lines) + 2
    target.write_text("\n".join([*lines, "", *text.splitlines(), ""]) + "\n", encoding="utf-8")
    return start


def new_copies(copy: Path, root: Path, seed_text: str, after: int) -> list[str]:
    """What the check finds in the put-back part only (the rest of the copy is the lecture's own)."""
    mark = re.compile(rf"{re.escape(PUT_BACK)}:(\d+)")
    return [f for f in copies_in(copy, seed_text, root)
            if (m := mark.search(f.split("\n")[0])) and int(m.group(1)) >= after]


def the_sentence(seed_text: str) -> str:
    line = seed_line_with(seed_text, SEED_SENTENCE)
    start = line.index(SEED_SENTENCE)
    return line[start:line.index("।", start) + 1]


def test_a_seed_sentence_put_back_is_caught(lecture_copy):
    root, copy = lecture_copy
    seed_text = read_seed()
    at = put_back(copy, the_sentence(seed_text))
    found = new_copies(copy, root, seed_text, at)
    assert len(found) == 1 and f"{PUT_BACK}:{at}:" in found[0] and "unbroken run" in found[0], found


def test_a_seed_sentence_with_a_word_moved_a_number_replaced_and_rewrapped_is_caught(lecture_copy):
    root, copy = lecture_copy
    seed_text = read_seed()
    line = seed_line_with(seed_text, SEED_NUMBER_SENTENCE)
    sentence = line[line.index(SEED_NUMBER_SENTENCE):]
    changed = (sentence.replace("৪০০টি", "`{python} bn(len(X))`টি")          # the number as an expression
               .replace("ব্যবহার করা", "ব্যবহার").replace("সরলতার", "সরলতার করা"))  # one word moved
    assert longest_run(tuple(words(changed)), tuple(words(sentence))) < MIN_WORDS
    cut = changed.index(" ", len(changed) // 2)
    at = put_back(copy, changed[:cut] + "\n" + changed[cut + 1:])         # wrapped over two lines
    found = new_copies(copy, root, seed_text, at)
    assert len(found) == 1 and f"{PUT_BACK}:{at}:" in found[0] and "seed's order" in found[0], found


def test_a_seed_sentence_in_a_table_cell_a_note_a_caption_and_a_printed_string_is_caught(lecture_copy):
    root, copy = lecture_copy
    seed_text = read_seed()
    sentence = the_sentence(seed_text).replace("যেমন", "ধরুন")           # one word swapped
    at = put_back(copy, f"| ক | {sentence} |\n|---|---|\n| খ | গ |")
    put_back(copy, f"::: {{.notes}}\nএকটি কথা। {sentence}\n:::")
    put_back(copy, f'```{{python}}\n#| fig-cap: "{sentence}"\nprint(f"{{n}} {sentence}")\n```')
    put_back(copy, f"- [ ] {sentence}\n- [x] অন্য কিছু")
    found = new_copies(copy, root, seed_text, at)
    assert len(found) == 5, "\n".join(found)


def test_the_seed_code_renamed_is_caught(lecture_copy):
    root, copy = lecture_copy
    seed_text = read_seed()
    lines = seed_text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(SEED_CLASS_START))
    block = "\n".join(line[4:] for line in lines[start:start + 7])
    renamed = (block.replace("M(", "Box(").replace("self.a", "self.first").replace("self.c", "self.tail")
               .replace("(4, 2)", "(5, 3)").replace('"s"', '"scale"'))
    assert renamed != block
    at = put_back(copy, f"```{{python}}\n{renamed}\n```")
    found = [f for f in new_copies(copy, root, seed_text, at) if "seed's code" in f]
    assert len(found) == 1, found


# Clauses lecture 09 once had, as they stood (a note, a list item, a claim, prose): each keeps a seed
# clause's words in the seed's order, joined to words of ours. `level` is where the check finds it:
# "clause" when the whole sentence shares too little with any seed sentence to be caught as one.
BORROWED = [
    ("_03-linear.qmd", "clause",
     "::: {.notes}\nসূত্রটা বোর্ডে লিখুন। তারপর ফাঁদ: in = out হলে transpose ভুললে আকার মেলে, কোনো error নেই, "
     "শুধু উত্তর ভুল। cell-এর শেষ লাইন: True False।\n:::"),
    ("_04-counting.qmd", "clause",
     "weight-এর আকার (out, in), তাই তাতে out × in ঘর, আর প্রতিটি output neuron-এর একটি করে bias। "
     "training-এর সময় gradient আর optimizer-এর অবস্থাও জায়গা নেয়, সেই হিসাব পর্ব ১২-এ; "
     "এখানে শুধু weight-এর memory।"),
    ("_04-counting.qmd", "clause",
     "এই অভ্যাসটাই পরের অংশের ফাঁদ ধরবে: নতুন model বানিয়েই গুনুন আর হাতের হিসাবের সঙ্গে মেলান।"),
    ("_05-containers.qmd", "clause",
     "এবার `self.head` নিবন্ধিত, শুধু মাঝের স্তরগুলো list-এ। [তখন optimizer head-এর "
     "`{python} bn(count_params(half))`টি parameter পায়, তাই কোনো error নেই; অথচ হাতের হিসাবে থাকার কথা "
     "`{python} bn(count_params(good))`টি।]{.claim check=\"count_params(half) == 9\"}"),
    ("_07-state-dict.qmd", "sentence",
     "model-এর হিসাবে ২ km দূরে একটি পণ্য পৌঁছাতে লাগে প্রায় `{python} bn(float(t64[0]), 1)` মিনিট, আর "
     "বৃষ্টিতে ৮.৫ km দূরে তিনটি পণ্য প্রায় `{python} bn(float(t64[1]), 1)` মিনিট।"),
    ("_08-save-load.qmd", "clause",
     "তার গঠন অংশ ৭-এর JSON-এর কথা মনে করায়: শুরুতে ছোট একটি JSON header (প্রতিটি tensor-এর নাম, dtype, "
     "আকার, ফাইলের কোথায় শুরু), তারপর শুধু কাঁচা byte।"),
    ("_09-modes.qmd", "clause",
     "::: {.notes}\nকেন `{python} bn(max(ones8))`? টিকে থাকাদের 1/(1−p) দিয়ে গুণ, যাতে গড় একই থাকে আর "
     "eval-এ কিছু করতে না হয়: inverted dropout।\n:::"),
    ("_11-questions.qmd", "clause",
     "- `eval()` ছাড়াই validation: Dropout চালু, তাই loss ফোলা আর অস্থির; BatchNorm থাকলে একটি অর্ডারের "
     "উত্তর নির্ভর করে একই batch-এ আর কারা এল তার ওপর"),
    ("_11-questions.qmd", "clause",
     "খরচের মাপ হিসেবে সংখ্যাটা সত্যিই কাজের: float32-এ প্রতিটি "
     "`{python} bn(torch.finfo(torch.float32).bits // 8)` byte, training-এ gradient আর Adam-এর অবস্থা মিলে "
     "কয়েক গুণ; আর সেই সংখ্যা দিয়েই memory-র বাজেট।"),
    ("_11-questions.qmd", "clause",
     "গুণের মাপ হিসেবে নয়: একই weight পুরো ছবিতে বারবার খাটিয়ে অনেক কম parameter-এর CNN "
     "৭৮৪-২৫৬-১২৮-১০ MLP-কে হারায় (পর্ব ২০–২১); mixture-of-experts প্রতি token-এ একটি অংশই চালায়।"),
    ("_12-self-check.qmd", "clause",
     "আর checkpoint-এ model-এর state_dict-এর সঙ্গে optimizer-এর নিজের state_dict আর epoch একসঙ্গে রাখা "
     "হবে, যাতে training ঠিক একই জায়গা থেকে আবার শুরু করা যায়।"),
]


def put_back_into(section: Path, text: str) -> int:
    """Append `text` to one section file; return the line it starts at."""
    lines = section.read_text(encoding="utf-8").splitlines()
    section.write_text("\n".join([*lines, "", *text.splitlines(), ""]) + "\n", encoding="utf-8")
    return len(lines) + 2


@pytest.mark.parametrize("section, level, text", BORROWED,
                         ids=[f"{name[1:-4]}-{k}" for k, (name, _, _) in enumerate(BORROWED)])
def test_a_borrowed_clause_put_back_is_caught(tmp_path, section, level, text):
    seed_text = read_seed()
    copy = tmp_path / section
    shutil.copy(SEED_LECTURE / section, copy)
    assert copies_in(copy, seed_text, tmp_path) == [], "the section copies the seed as it is"
    at = put_back_into(copy, text)
    found = copies_in(copy, seed_text, tmp_path)
    assert found and all(int(f.split(":", 2)[1]) >= at for f in found), found
    assert {f.split(": ", 2)[1] for f in found} == {level}, found


def test_a_seed_clause_joined_to_our_words_is_caught_however_it_is_joined():
    """One seed clause (two words changed, so no unbroken run) inside a long sentence of ours, joined
    by a colon, a semicolon, an em dash or a line end it prints: too little of the sentence to be a
    copy of a seed sentence, all of a clause."""
    seed_text = read_seed()
    line = seed_line_with(seed_text, SEED_CLAUSE)
    clause = line[line.index(SEED_CLAUSE):line.index("।", line.index(SEED_CLAUSE))]
    clause = clause.replace("training-এ", "training-এর সময়").replace("যার", "সেই")
    ours = ("ডেলিভারি model-এর weight এক KiB-এরও কম, কাজেই ছোট একটি ল্যাপটপেও সেটি অনায়াসে ধরে যায়, "
            "তবু বড় model বানানোর আগে মনে রাখার মতো একটি কথা আছে")
    seed = seed_sentences(seed_text)
    for joined in (f"{ours}: {clause}।", f"{ours}; {clause}।", f"{ours} — {clause} — শেষ কথা এটুকুই।"):
        sentence = sentences_of([Unit(ROOT / "x.qmd", 1, joined)], ROOT)
        assert len(sentence) == 1 and seed_indexes(seed)[0].copy_of(sentence[0]) is None
        found = sentence_copies(sentence, seed)
        assert len(found) == 1 and "x.qmd:1: clause:" in found[0], (joined, found)
    code = f'print("{ours}\\n{clause}")\n'
    found = sentence_copies(sentences_of(python_units(code, 1, ROOT / "x.py"), ROOT), seed)
    assert len(found) == 1 and "clause:" in found[0], found


def test_own_sentences_on_the_same_topic_pass():
    seed = seed_sentences(read_seed())
    ours = sentences_of([Unit(ROOT / "x.qmd", 1,
                              "ডেলিভারির সময় মাপার model-এ গড়টি buffer হিসেবে রাখলে state_dict তাকে "
                              "ফাইলে নিয়ে যায়, আর optimizer তাকে কখনো ছোঁয় না।")], ROOT)
    assert ours and sentence_copies(ours, seed) == []


def test_a_missing_seed_fails_and_says_so(tmp_path):
    with pytest.raises(pytest.fail.Exception, match="seed page is missing"):
        read_seed(tmp_path / "shared" / "seed" / "lecture-09-nn-module.txt")


def test_numbers_and_inline_expressions_are_one_wildcard():
    assert words("মোট ২০৯টি আর `{python} bn(total)`টি, 0.5702") == ["মোট", "#টি", "আর", "#টি", "#"]
    # A run of numbers (a printed list, a sum worked by hand) is one value, not a run of shared words.
    assert words("[[2.0, 1, 0], [8.5, 3, 1]]") == ["#"]
    assert words("৩ × ১৬ + ১৬ = `{python} n`, ১৬ × ৮ + ৮") == ["#"]


# ---- the exercise answers are computed, never typed --------------------------------------------------

CODE_FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
EXERCISE_ANSWERS = {
    3523: ("3523", "3,523", "৩৫২৩", "৩,৫২৩"),
    115: ("115", "১১৫"),
    22: ("22", "২২"),
}


def prose(text: str) -> str:
    """The text outside code cells, inline expressions and claim conditions."""
    text = CODE_FENCE.sub("\n", text)
    return CLAIM_CHECK.sub(" ", INLINE.sub(" ", text))


def typed(number_forms, text):
    digit = "0-9০-৯"
    hits = []
    for form in number_forms:
        pattern = rf"(?<![{digit}])(?<![{digit}][.,]){re.escape(form)}(?![{digit}])(?![.,][{digit}])"
        hits += [m.group(0) for m in re.finditer(pattern, text)]
    return hits


def test_exercise_answers_are_not_typed():
    text = prose((SEED_LECTURE / "_11-questions.qmd").read_text(encoding="utf-8"))
    for answer, forms in EXERCISE_ANSWERS.items():
        assert not typed(forms, text), f"exercise answer {answer} is typed in _11-questions.qmd's prose"


def test_the_typed_number_check_sees_typed_numbers():
    sample = "মোট ৩,৫২৩ আর `{python} bn(115)` আর ১৩৪৪\n```{python}\nx = 22\n```\n"
    assert typed(EXERCISE_ANSWERS[3523], prose(sample)) == ["৩,৫২৩"]
    assert typed(EXERCISE_ANSWERS[115], prose(sample)) == []
    assert typed(EXERCISE_ANSWERS[22], prose(sample)) == []
