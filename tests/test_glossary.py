"""The course glossary (lectures/glossary.yaml) and the words of the lectures' prose, read from the
sources without a render: one word per concept (no lecture writes a word the glossary avoids for a
concept), one numeral script per sentence (no Latin digits beside Bangla ones), every lecture's
glossary section drawn from the file, and the reader's refusals of a bad glossary at their line."""
import functools
import re
import textwrap
from pathlib import Path

import pytest

from helpers import ROOT
from lecturekit.errors import LectureError
from lecturekit.project import Project
from lecturekit.read.glossary import glossary_path, load
from lecturekit.read.qmd import Markdown, read_lecture
from lecturekit.read.scanner import prose_lines

LECTURES = [folder.name for folder in Project(ROOT).lectures()]

# Prose as a reader reads it: attributes (`{.claim check="…"}`, `{#sec-…}`) and a list item's
# number are markup, not words; a call or an index written without backticks (`Linear(3, 1)`,
# `X[:, 0]`) and a path are code, whatever script their digits are in.
ATTRIBUTES = re.compile(r"\{[^{}]*\}")
# A formula ($…$) is notation: its digits are the formula's, as KaTeX and Typst set them.
MATH = re.compile(r"\$[^$]+\$")
LIST_NUMBER = re.compile(r"^\s*(?:[-*]\s+)?[0-9]+[.)]\s")
CODE_LIKE = re.compile(r"[A-Za-z_][\w.]*[(\[][^)\]]*[)\]]|\S*/\S*[A-Za-z]\S*")
# A Latin numeral on its own, not a part of a name (float32, 1-d, bfloat16, cuda:0).
LATIN_NUMERAL = re.compile(r"(?<![A-Za-z_0-9.\-:])[0-9]+(?:[.,][0-9]+)*(?![A-Za-z_0-9]|-[A-Za-z])")
BANGLA_DIGIT = re.compile(r"[০-৯]")
SENTENCE = re.compile(r"[^।?!]+")


@functools.cache  # both checks read each lecture once
def prose(lecture_dir: Path, root: Path) -> list[tuple[str, int, str]]:
    """(file, line, text) of every prose line of a lecture, code blocks and code spans (inline
    `{python}` values among them) left out; the glossary entries it shows come from the glossary file."""
    lecture = read_lecture(lecture_dir / "index.qmd", root)
    return [(block.file.name, line, text) for block in lecture.blocks if isinstance(block, Markdown)
            for line, text in prose_lines(block)]


def avoided_words(lecture_dir: Path, root: Path) -> list[str]:
    entries = load(glossary_path(root / "lectures")).entries.values()
    return [f"{file}:{line}: '{word}' stands for {entry.key}; the course writes '{entry.term}'"
            for file, line, text in prose(lecture_dir, root)
            for entry in entries for word in entry.avoid if word in text]


def mixed_numerals(lecture_dir: Path, root: Path) -> list[str]:
    found = []
    for file, line, text in prose(lecture_dir, root):
        words = CODE_LIKE.sub(" ", MATH.sub(" ", ATTRIBUTES.sub(" ", LIST_NUMBER.sub(" ", text))))
        for sentence in SENTENCE.findall(words):
            if BANGLA_DIGIT.search(sentence) and LATIN_NUMERAL.search(sentence):
                found.append(f"{file}:{line}: Latin {LATIN_NUMERAL.findall(sentence)} beside Bangla digits in "
                             f"“{sentence.strip()[:100]}”")
    return found


def test_the_glossary_fits_its_schema_and_each_lecture_shows_entries_that_name_it():
    glossary = load(glossary_path(ROOT / "lectures"))
    assert len(glossary.entries) >= 60
    for name in LECTURES:
        text = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "lectures" / name).glob("*.qmd")))
        shown = [key for keys in re.findall(r'\.glossary[^}\n]*terms="([^"]*)"', text) for key in keys.split()]
        assert shown, f"{name}: its glossary section names no terms of {glossary.path.name}"
        assert not [k for k in shown if name not in glossary.entries[k].lectures], name


@pytest.mark.parametrize("name", LECTURES)
def test_one_word_per_concept(name):
    assert avoided_words(ROOT / "lectures" / name, ROOT) == []


@pytest.mark.parametrize("name", LECTURES)
def test_one_numeral_script_per_sentence(name):
    assert mixed_numerals(ROOT / "lectures" / name, ROOT) == []


GLOSSARY = """\
view:
  term: view
  en: view
  definition: একই storage-এর ওপর নতুন shape; কোনো copy নেই।
  lectures: [01-x]
freeze:
  term: স্থির করা
  en: freeze
  definition: parameter-এ `requires_grad_(False)`।
  lectures: [01-x]
  avoid: [জমানো স্তর]
"""


def mini(tmp_path: Path, body: str, glossary: str = GLOSSARY) -> Path:
    """A project of one lecture beside a glossary file."""
    lecture = tmp_path / "lectures" / "01-x"
    lecture.mkdir(parents=True)
    (tmp_path / "lectures" / "glossary.yaml").write_text(glossary, encoding="utf-8")
    (lecture / "index.qmd").write_text(f"---\ntitle: x\n---\n\n# অংশ {{#sec-a}}\n\n{textwrap.dedent(body)}",
                                       encoding="utf-8")
    return lecture


def test_a_glossary_section_is_drawn_from_the_file(tmp_path):
    lecture = mini(tmp_path, '::: {.glossary terms="freeze view"}\n:::\n')
    blocks = [b for b in read_lecture(lecture / "index.qmd", tmp_path).blocks if isinstance(b, Markdown)]
    entries = [b for b in blocks if b.file.name == "glossary.yaml"]
    assert [b.text for b in entries] == ["স্থির করা (freeze)\n: parameter-এ `requires_grad_(False)`।\n",
                                         "view\n: একই storage-এর ওপর নতুন shape; কোনো copy নেই।\n"]
    assert [b.line for b in entries] == [6, 1]  # each entry at its key's line in the file


@pytest.mark.parametrize("body, glossary, where, message", [
    ('::: {.glossary terms="view stride"}\n:::\n', GLOSSARY, ("index.qmd", 7), "not in glossary.yaml: stride"),
    ('::: {.glossary terms="view"}\n:::\n', GLOSSARY.replace("lectures: [01-x]\nfreeze", "lectures: 01-x\nfreeze"),
     ("glossary.yaml", 5), "lectures' has the wrong type"),
    ('::: {.glossary terms="view"}\n:::\n', GLOSSARY.replace("  en: view\n", "  en: view\n  colour: red\n"),
     ("glossary.yaml", 4), "'view: colour' is outside the supported subset"),
    ('::: {.glossary terms="view"}\n:::\n', GLOSSARY.replace("কোনো copy নেই", "`{python} 1+1` copy"),
     ("glossary.yaml", 1), "the glossary is text"),
    ('::: {.glossary terms="freeze"}\n:::\n', GLOSSARY.replace("`requires_grad_(False)`", "জমানো স্তর"),
     ("glossary.yaml", 6), "avoids 'জমানো স্তর' but uses it itself"),
])
def test_a_bad_glossary_is_refused_at_its_line(tmp_path, body, glossary, where, message):
    lecture = mini(tmp_path, body, glossary)
    with pytest.raises(LectureError) as refused:
        read_lecture(lecture / "index.qmd", tmp_path)
    assert message in str(refused.value)
    assert f"{where[0]}:{where[1]}:" in str(refused.value)


def test_the_checks_flag_a_collided_word_and_mixed_numerals(tmp_path):
    """Both prose checks on a throwaway lecture: each flags the sentence that breaks its rule and
    passes the same lecture without it."""
    clean = "স্তর স্থির করা হলো, ৩টি parameter বাদে; float32 আর `x[0]` ঠিক আছে।\n"
    good, bad = tmp_path / "good", tmp_path / "bad"
    lecture = mini(good, clean)
    assert avoided_words(lecture, good) == [] and mixed_numerals(lecture, good) == []
    lecture = mini(bad, clean + "\nপ্রথম জমানো স্তর ঠিক 2টি, আর অংশ ৩-এ বাকিটা।\n")
    assert [m.split(": ", 1)[0] for m in avoided_words(lecture, bad)] == ["index.qmd:9"]
    assert [m.split(": ", 1)[0] for m in mixed_numerals(lecture, bad)] == ["index.qmd:9"]
