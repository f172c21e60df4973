"""The course glossary, `lectures/glossary.yaml`: one entry per concept (the course's one word for
it, the English term, a one-line definition, the lectures that use it, the words to avoid for it).

A lecture's glossary is a `.glossary` div naming the concepts it wants, `terms="view stride …"`;
the reader puts the entries in, as a definition list after whatever the div itself holds, so both
renderers (ours and Quarto, which renders the executed notebook) show the same text. The file sits
beside the lecture folders: a lecture is a folder with an index.qmd (project.py), so a file there is
never taken for one, and the whole course reads the same file.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from lecturekit import schema, yamlio
from lecturekit.errors import LectureError
from lecturekit.fsutil import read_source

GLOSSARY_FILE = "glossary.yaml"


@dataclass(frozen=True)
class Entry:
    key: str
    term: str
    en: str
    definition: str
    lectures: tuple[str, ...]
    avoid: tuple[str, ...]
    line: int  # of its key in the file

    @property
    def markdown(self) -> str:
        """The entry as one item of a definition list."""
        return f"{self.heading}\n: {self.definition}\n"

    @property
    def heading(self) -> str:
        """The defined term as the list shows it: the course's word, and the English one when it differs."""
        return self.term if self.en == self.term else f"{self.term} ({self.en})"


@dataclass(frozen=True)
class Glossary:
    path: Path
    entries: dict[str, Entry]

    def chosen(self, keys: list[str], named_in: Path, line: int) -> list[Entry]:
        """The entries of `keys`, in that order; an unknown key is an error at the line of the div
        that names it."""
        unknown = [k for k in keys if k not in self.entries]
        if unknown:
            raise LectureError(f"glossary terms not in {self.path.name}: {', '.join(unknown)}", named_in, line)
        if len(set(keys)) != len(keys):
            twice = sorted({k for k in keys if keys.count(k) > 1})
            raise LectureError(f"glossary terms named twice: {', '.join(twice)}", named_in, line)
        return [self.entries[k] for k in keys]


def glossary_path(lectures_dir: Path) -> Path:
    return Path(lectures_dir) / GLOSSARY_FILE


def load(path: Path, named_in: Path | None = None, line: int | None = None) -> Glossary:
    """The glossary file, checked against schemas/glossary.yaml; errors at their line in it."""
    text = read_source(path, named_in, line)
    try:
        data = yamlio.load(text)
    except yaml.YAMLError as err:
        raise LectureError(f"malformed YAML: {yamlio.yaml_error_text(err)}", path,
                           yamlio.yaml_error_line(err) + 1) from None
    lines = yamlio.key_lines(text)
    schema.check(data, "glossary", path, lines, what="glossary entry", line=1)
    entries = {key: Entry(key, value["term"].strip(), value["en"].strip(), " ".join(value["definition"].split()),
                          tuple(value["lectures"]), tuple(value.get("avoid", [])), lines[(key,)])
               for key, value in data.items()}
    for entry in entries.values():
        for word in entry.avoid:
            if word in entry.term or word in entry.definition:
                raise LectureError(f"'{entry.key}' avoids '{word}' but uses it itself", path, entry.line)
    return Glossary(path, entries)
