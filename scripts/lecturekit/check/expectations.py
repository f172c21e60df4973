"""tests/expected/<lecture>.yaml: each output-producing cell's expected output, keyed by its label,
and what the prose printed and the files the outputs came from.

    _files:
      code/bazarghar/train.py: 5be0…
      lectures/09-nn-module/_01-module.qmd: 0c4d…
    _prose:
    - {file: lectures/09-nn-module/_04-counting.qmd, expr: bn(total), value: ২,৩৫,১৪৬}
    - {file: lectures/09-nn-module/_04-counting.qmd, claim: 'গড় ০.৫-এর কাছে', holds: true}
    tour-build:
      versions: {python: 3.11.7, torch: 2.13.0+cpu, numpy: 2.4.6, cpu_capability: AVX512, ...}
      code: {cell: 3f2a…, before: 9c1e…}
      outputs:
      - stdout: |
          DeliveryMLP(
          ...

`_files` holds a digest of every file under code/ and in the lecture's folder (so a report names the
file that changed, see cause.py), `_prose` the text every inline expression printed and whether
every claim held, in document order (prose.py). Entries follow the lecture's order. `--accept`
rewrites every entry (versions, digests); a check that passes refreshes the digests and the prose.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import yaml

from lecturekit import schema, yamlio
from lecturekit.errors import LectureError
from lecturekit.fsutil import read_source, write_atomic
from lecturekit.yamlio import key_lines, yaml_error_line, yaml_error_text
from .cause import fingerprint
from .normalise import Item
from .records import CodeDigests, Entry, ProseRecord, Versions

HEADER = ("# Expected outputs of lecture {name}, one entry per cell that produces output, keyed by its\n"
          "# label, with the versions they were recorded under. Checked by `scripts/check {name}`;\n"
          "# `scripts/check {name} --accept` records the new outputs and rewrites every entry.\n")
# An expectations file larger than this is refused unread (lecture 09's is 110 kB).
MAX_BYTES = 20_000_000
FILES, PROSE = "_files", "_prose"  # top-level keys that are not cell labels


class _Flow(dict[str, Any]):
    """A mapping YAML writes on one line."""


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|" if "\n" in text else None)


_Dumper.add_representer(str, _str)
_Dumper.add_representer(_Flow, lambda d, m: d.represent_mapping("tag:yaml.org,2002:map", m.items(),
                                                                flow_style=True))


def entry_for(items: list[Item], versions: Versions, code: CodeDigests | None = None) -> Entry:
    """The stored form of one cell's outputs: what they ran under (cause.FINGERPRINT_KEYS), the
    code digests (cause.code_digests) and the outputs."""
    if code:
        return {"versions": fingerprint(versions), "code": code, "outputs": items}
    return {"versions": fingerprint(versions), "outputs": items}


def _flow(value: Any) -> Any:
    return _Flow({k: _flow(v) for k, v in value.items()}) if isinstance(value, dict) else value


def dump_entry(label: str, entry: Entry) -> str:
    data = {"versions": _flow(entry.get("versions") or {}),
            **({"code": _Flow(entry["code"])} if entry.get("code") else {}),
            "outputs": entry.get("outputs") or []}
    return _dump({label: data})


def _dump(data: Any) -> str:
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     width=1_000_000, default_flow_style=False)
    # A `|+` scalar makes PyYAML close the document with `...`; entries share one document.
    return text[:-4] if text.endswith("\n...\n") else text


class Expectations:
    """One lecture's expectations file: entries by label, and each entry's text as written."""

    def __init__(self, path: str | os.PathLike[str], lecture_name: str) -> None:
        self.path = Path(path)
        self.lecture_name = lecture_name
        self.header = HEADER.format(name=lecture_name)
        self.entries: dict[str, Entry] = {}
        self.files: dict[str, str] = {}  # path relative to the project -> digest, when the outputs were last confirmed
        # prose.py's records, in document order (as read back: whatever the file holds)
        self.prose: list[Any] = []
        self.chunks: dict[str, str] = {}  # label -> the entry's text in the file
        self.exists = self.path.exists()
        self.text: str | None = None  # the file as read (None: there was none)
        if self.exists:
            self._read()

    def changed_on_disk(self) -> bool:
        """Whether the file is no longer what was read (a cell of the lecture wrote to it)."""
        try:
            now: str | None = self.path.read_bytes().decode("utf-8", "replace")
        except FileNotFoundError:
            now = None
        return now != self.text

    def put_back(self) -> None:
        """The file as it was read (or no file, when there was none)."""
        if self.text is None:
            self.path.unlink(missing_ok=True)
        else:
            self._write_text(self.text)

    def _read(self) -> None:
        """Read the file as --accept writes it. Anything else (bytes that are not UTF-8, YAML that
        does not parse, anchors and aliases, a flow-style mapping, entries of the wrong shape) is a
        LectureError at its line: that lecture fails with one line, the others go on."""
        advice = f"(delete it and record the outputs again: scripts/check {self.lecture_name} --accept)"
        text = self.text = read_source(self.path, limit=MAX_BYTES)
        try:
            data = yamlio.load(text) or {}
            top = yaml.compose(text, Loader=yamlio.LOADER)
        except yaml.YAMLError as err:
            raise LectureError(f"malformed YAML: {yaml_error_text(err)} {advice}", self.path,
                               yaml_error_line(err) + 1) from None
        if not isinstance(data, dict) or not isinstance(top, (yaml.MappingNode, type(None))):
            raise LectureError(f"expectations must be a mapping from cell label to entry {advice}", self.path, 1)
        if top is not None and top.flow_style:
            raise LectureError(f"written as one YAML flow mapping ({{…}}); the file is block style, one entry "
                               f"per label, as --accept writes it {advice}", self.path, top.start_mark.line + 1)
        schema.check(data, "expectations", self.path, key_lines(text), what="expectation", line=1)
        self.files = data.pop(FILES, None) or {}
        self.prose = data.pop(PROSE, None) or []
        # Checked just above: each entry a mapping with a list of outputs.
        self.entries = {str(k): cast(Entry, v) for k, v in data.items()}
        # Each entry's text as written, from its key's line to the next key's (or the end).
        lines = text.splitlines(keepends=True)
        starts = [(key.start_mark.line, str(key.value)) for key, _value in (top.value if top else [])]
        self.header = "".join(lines[:starts[0][0]]) if starts else text
        for (first, key), (after, _next) in zip(starts, [*starts[1:], (len(lines), "")]):
            self.chunks[key] = "".join(lines[first:after])
        self.chunks.pop(FILES, None)
        self.chunks.pop(PROSE, None)

    def get(self, label: str) -> Entry | None:
        return self.entries.get(label)

    def labels(self) -> list[str]:
        return list(self.entries)

    def versions(self) -> list[Versions]:
        """The distinct version sets the entries were recorded under."""
        seen: list[Versions] = []
        for entry in self.entries.values():
            v = entry.get("versions") or {}
            if v not in seen:
                seen.append(v)
        return seen

    def write(self, new_entries: Mapping[str, Entry], removed: Sequence[str], document_order: Sequence[str]) -> None:
        """Set the entries in `new_entries`, drop `removed`, keep every other entry's text as it is."""
        order = [label for label in self.entries if label not in removed]
        for label in new_entries:
            if label in order:
                continue
            # Insert after the nearest label that precedes it in the lecture and is already stored.
            before = list(document_order[:document_order.index(label)]) if label in document_order else []
            anchor = next((b for b in reversed(before) if b in order), None)
            order.insert(order.index(anchor) + 1 if anchor else 0, label)
        for label in removed:
            self.entries.pop(label, None)
            self.chunks.pop(label, None)
        for label, entry in new_entries.items():
            self.entries[label] = entry
            self.chunks[label] = dump_entry(label, entry)
        self._write_text(self.header + self._meta_text() + "".join(self.chunks[label] for label in order))
        self.entries = {label: self.entries[label] for label in order}
        self.exists = True

    def rewrite(self, entries: Mapping[str, Entry], files: Mapping[str, str], prose: Sequence[ProseRecord]) -> None:
        """Write the whole file: every entry (in the order given), the file digests and the prose."""
        self.header = HEADER.format(name=self.lecture_name)
        self.files, self.prose = dict(files), list(prose)
        self.entries = dict(entries)
        self.chunks = {label: dump_entry(label, entry) for label, entry in self.entries.items()}
        self._write_text(self.header + self._meta_text() + "".join(self.chunks.values()))
        self.exists = True

    def _meta_text(self) -> str:
        text = ""
        if self.files:
            text += _dump({FILES: dict(self.files)})  # one line per file: a diff names the file
        if self.prose:
            text += _dump({PROSE: [_Flow(p) for p in self.prose]})
        return text

    def _write_text(self, text: str) -> None:
        write_atomic(self.path, text.encode("utf-8"))
        self.text = text
