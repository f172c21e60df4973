"""Our wording is our own in the small units too: a table row, a table cell, a list item, a quiz option
or a string a snippet prints must not repeat the seed page of lecture 09, even when the copy is shorter
than the 8-token runs test_originality.py looks for or has a word changed here and there.

Units are compared without spaces and markdown marks (the seed's tables lost their cell separators,
so a row is compared as its cells run together). A unit is a copy when it appears verbatim in the seed
(at least MIN_VERBATIM characters), when it is nearly the same as one line of the seed (difflib
ratio at least MIN_RATIO, for units of at least MIN_FUZZY characters), or when most of it (MIN_SHARE)
is one unbroken piece of a seed line. Lines of code that print (a `print(` or an f-string) are compared
whole with the seed's printing lines: the same template with other variable names is still a copy.
"""
import difflib
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

from test_originality import ALLOWED, read_seed

ROOT = Path(__file__).resolve().parents[1]
MIN_VERBATIM = 18
MIN_FUZZY = 24
MIN_RATIO = 0.8
MIN_SHARE = 0.6

# API spellings and torch's own message that any text on the topic must quote as they are: removed
# from a unit before it is measured, so only the words around them count.
CODE_FACTS = ("weights_only=False", "weights_only=True", "Weights only load failed")
INLINE = re.compile(r"`\{python\}[^`\n]*`")
CLAIM = re.compile(r'\{\.claim check="[^"]*"\}|\{\.[\w-]+[^}]*\}')
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)]|\(\w+\))\s+(?:\[[ xX]\]\s+)?(.+)$")
# Printing lines of the seed's code that our code may not reuse (whitespace and comments ignored).
MIN_PRINT_RATIO = 0.85
PRINTS = re.compile(r"print\(|\bf\"|\bf'")
# Print templates still waiting for their rewrite: (file, a piece of the line). Empty when none.
PENDING: list = []
FIELD = re.compile(r"\{[^{}]*\}")


@dataclass
class Unit:
    path: Path
    line: int
    kind: str
    text: str


def compact(text: str) -> str:
    """What a reader sees, without spaces, marks and markdown: the form copies keep."""
    text = CLAIM.sub("", INLINE.sub("", text))
    text = re.sub(r"\{[^{}]*\}", "", text) if "{" in text and "f\"" in text else text
    return re.sub(r"[\s`*_\[\]$“”\"'|।.,:;()\-—–·…→]", "", text).lower()


def strings_of(code: str, first_line: int, path: Path) -> list[Unit]:
    """The string literals of a piece of Python (f-string fields dropped): what it prints."""
    found = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.STRING:
                body = re.sub(r"^[A-Za-z]*(\"\"\"|'\'\'|\"|')", "", tok.string)
                body = FIELD.sub(" ", body.rstrip("\"'"))
                found.append(Unit(path, first_line + tok.start[0] - 1, "string", body))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return found


def print_lines(path: Path) -> list[Unit]:
    """Every line of code that prints or formats a string, with a string literal in it."""
    units, fence = [], path.suffix == ".py"
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if path.suffix != ".py" and raw.strip().startswith("```"):
            fence = not fence and raw.strip().startswith("```{python")
            continue
        code = raw.split("  #")[0].strip()
        if fence and PRINTS.search(code) and re.search(r"[\"']", code):
            units.append(Unit(path, number, "printing line", code))
    return units


def print_copies(units: list[Unit], seed_text: str) -> list[str]:
    squash = lambda text: re.sub(r"\s+", "", text)
    seed_prints = [squash(line.split("  #")[0]) for line in seed_text.splitlines() if PRINTS.search(line)]
    found = []
    for unit in units:
        own = squash(unit.text)
        if len(own) < MIN_FUZZY:
            continue
        for line in seed_prints:
            ratio = difflib.SequenceMatcher(None, own, line, autojunk=False).ratio()
            if ratio >= MIN_PRINT_RATIO:
                where = unit.path.relative_to(ROOT) if unit.path.is_relative_to(ROOT) else unit.path.name
                found.append(f"{where}:{unit.line}: printing line ({ratio:.2f} like the seed's): {unit.text[:90]}")
                break
    return found


def units_of(path: Path) -> list[Unit]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        return strings_of(text, 1, path)
    units, fence, code, start = [], None, [], 0
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("```"):
            if fence is None:
                fence, code, start = (line.strip("`{} ") or "text"), [], number + 1
            else:
                if fence.startswith("python"):
                    # Code is ours to write; what it prints (its string literals) must be ours too.
                    units += strings_of("\n".join(code) + "\n", start, path)
                fence = None
            continue
        if fence is not None and fence.startswith("python"):
            code.append(raw)
            continue
        if line.startswith("|") and not re.fullmatch(r"\|[\s:|-]+\|?", line):
            cells = [c.strip() for c in line.strip("|").split("|")]
            units.append(Unit(path, number, "table row", " ".join(cells)))
            units.extend(Unit(path, number, "table cell", c) for c in cells if c)
            continue
        item = LIST_ITEM.match(raw)
        if item:
            units.append(Unit(path, number, "list item", item.group(1)))
    return units


def sources() -> list[Path]:
    return sorted((ROOT / "lectures").glob("**/*.qmd")) + sorted((ROOT / "code").glob("**/*.py"))


def allowed(text: str) -> bool:
    return any(compact(fact) in compact(text) for fact, _ in ALLOWED)


def copies(units: list[Unit], seed_text: str) -> list[str]:
    seed_all = compact(seed_text)
    seed_lines = {compact(line) for line in seed_text.splitlines()}
    seed_lines = [s for s in seed_lines if len(s) >= MIN_FUZZY // 2]
    found = []
    for unit in units:
        text = unit.text
        for fact in CODE_FACTS:
            text = text.replace(fact, " ")
        own = compact(text)
        # Fewer than three words is a name or a message fragment we match on, not wording.
        if len(own) < MIN_VERBATIM or len(text.split()) < 3 or allowed(unit.text):
            continue
        why = None
        if own in seed_all:
            why = "verbatim"
        elif len(own) >= MIN_FUZZY:
            for line in seed_lines:
                matcher = difflib.SequenceMatcher(None, own, line, autojunk=False)
                if matcher.real_quick_ratio() >= MIN_RATIO and matcher.quick_ratio() >= MIN_RATIO \
                        and matcher.ratio() >= MIN_RATIO:
                    why = f"{matcher.ratio():.2f} like a seed line"
                    break
                # A unit whose greater part is one unbroken piece of a seed line.
                if own[:4] in line or own[-4:] in line:
                    block = matcher.find_longest_match(0, len(own), 0, len(line)).size
                    if block >= max(MIN_VERBATIM, MIN_SHARE * len(own)):
                        why = f"{block} of its {len(own)} characters in one piece of a seed line"
                        break
        if why:
            where = unit.path.relative_to(ROOT) if unit.path.is_relative_to(ROOT) else unit.path.name
            found.append(f"{where}:{unit.line}: {unit.kind} ({why}): {unit.text[:90]}")
    return found


def pending(entry: str) -> bool:
    return any(entry.startswith(path) and piece in entry for path, piece in PENDING)


def test_no_printing_line_reuses_a_template_of_the_seed():
    seed_text = read_seed()
    found = []
    for path in sources():
        found += print_copies(print_lines(path), seed_text)
    assert not [f for f in found if not pending(f)], "print templates taken from the seed:\n" + "\n".join(found)
    for path, piece in PENDING:
        assert any(f.startswith(path) and piece in f for f in found), f"{path}: fixed, drop it from PENDING"


def test_no_table_row_list_item_or_printed_string_copies_the_seed():
    seed_text = read_seed()
    found = []
    for path in sources():
        found += copies(units_of(path), seed_text)
    assert not found, f"{len(found)} units repeat the seed:\n" + "\n".join(found)


def test_the_block_check_sees_copies(tmp_path):
    seed = ("AI প্রায়ই যা করেকেন ভুলকীভাবে ধরবেন\n"
            "গড়/std সাধারণ attribute-এ রাখেstate_dict-এ যায় না, অন্য মেশিনে হারায়state_dict().keys() পড়ুন\n"
            "  1. torch.save(model.state_dict(), path) দিয়ে শুধু weight আর buffer সেভ করা\n"
            '    print(f"parameter {n}, state_dict keys {len(m.state_dict())}")\n')
    ours = tmp_path / "x.qmd"
    ours.write_text("| গড়/std সাধারণ attribute-এ রাখে | state_dict-এ যায় না; অন্য মেশিনে হারায় |"
                    " `state_dict().keys()` পড়ুন |\n"
                    "- `torch.save(model.state_dict(), path)` দিয়ে শুধু weight আর buffer সেভ করুন\n"
                    "```{python}\nprint(f\"parameter {n}, state_dict keys {len(m.state_dict())}\")\n```\n"
                    "- একেবারে নিজের ভাষায় লেখা একটি আলাদা বাক্য, যার সঙ্গে কোনো মিল নেই\n", encoding="utf-8")
    kinds = [u.kind for u in units_of(ours)]
    assert "table row" in kinds and "list item" in kinds and "string" in kinds
    found = copies(units_of(ours), seed)
    text = "\n".join(found)
    assert "table row" in text, text
    assert "list item" in text and "সেভ করুন" in text, text
    assert "string" in text, text
    assert "নিজের ভাষায়" not in text


def test_the_print_check_sees_a_renamed_template(tmp_path):
    seed = '    print(f"{name:16s} {str(tuple(p.shape)):9s} {p.numel():4d}")\n'
    ours = tmp_path / "y.qmd"
    ours.write_text("```{python}\nfor n, t in ps:\n    print(f\"{n:16s} {str(tuple(t.shape)):8s} {t.numel():4d}\")\n"
                    "print(f\"{total:>4} = সব parameter-এর যোগফল\")\n```\n", encoding="utf-8")
    found = print_copies(print_lines(ours), seed)
    assert len(found) == 1 and "t.numel" in found[0], found
