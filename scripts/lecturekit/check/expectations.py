"""tests/expected/<lecture>.yaml: each output-producing cell's expected output, keyed by its label.

    tour-build:
      versions: {python: 3.11.7, torch: 2.13.0+cpu, numpy: 2.4.6, cpu_capability: AVX512, ...}
      code: {cell: 3f2a…, before: 9c1e…}
      outputs:
      - stdout: |
          DeliveryMLP(
          ...

Entries follow the lecture's order. Rewriting replaces only the entries that changed: every other
entry keeps its exact text (comments included), so the diff of an --accept shows only real changes.
"""
import re
from pathlib import Path

import yaml

from lecturekit.errors import LectureError
from .cause import fingerprint

HEADER = ("# Expected outputs of lecture {name}, one entry per cell that produces output, keyed by its\n"
          "# label, with the versions they were recorded under. Checked by `scripts/check {name}`;\n"
          "# `scripts/check {name} --accept [LABEL ...]` rewrites the entries whose output changed.\n")
TOP_KEY = re.compile(r"^[^\s#\-.]")


class _Flow(dict):
    pass


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper, text):
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|" if "\n" in text else None)


_Dumper.add_representer(str, _str)
_Dumper.add_representer(_Flow, lambda d, m: d.represent_mapping("tag:yaml.org,2002:map", m.items(),
                                                                flow_style=True))


def entry_for(items, versions, code=None):
    """The stored form of one cell's outputs: what they ran under (cause.FINGERPRINT_KEYS), the
    code digests (cause.code_digests) and the outputs."""
    entry = {"versions": fingerprint(versions)}
    if code:
        entry["code"] = code
    entry["outputs"] = items
    return entry


def _flow(value):
    return _Flow({k: _flow(v) for k, v in value.items()}) if isinstance(value, dict) else value


def dump_entry(label, entry):
    entry = {"versions": _flow(entry.get("versions") or {}),
             **({"code": _Flow(entry["code"])} if entry.get("code") else {}),
             "outputs": entry.get("outputs") or []}
    text = yaml.dump({label: entry}, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     width=1_000_000, default_flow_style=False)
    # A `|+` scalar makes PyYAML close the document with `...`; entries share one document.
    return text[:-4] if text.endswith("\n...\n") else text


class Expectations:
    """One lecture's expectations file: entries by label, and each entry's text as written."""

    def __init__(self, path, lecture_name):
        self.path = Path(path)
        self.lecture_name = lecture_name
        self.header = HEADER.format(name=lecture_name)
        self.entries = {}  # label -> {"versions": {...}, "outputs": [items]}
        self.chunks = {}  # label -> the entry's text in the file
        self.exists = self.path.exists()
        if self.exists:
            self._read()

    def _read(self):
        text = self.path.read_text(encoding="utf-8")
        try:
            data = yaml.safe_load(text) or {}
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            raise LectureError(f"malformed YAML: {getattr(err, 'problem', err)}", self.path,
                               mark.line + 1 if mark else None) from None
        if not isinstance(data, dict):
            raise LectureError("expectations must be a mapping from cell label to entry", self.path, 1)
        for label, entry in data.items():
            if not isinstance(entry, dict) or not isinstance(entry.get("outputs", []), list):
                raise LectureError(f"entry '{label}' must hold 'versions' and a list 'outputs'", self.path)
        self.entries = {str(k): v for k, v in data.items()}
        header, current, lines = [], None, []
        for line in text.splitlines(keepends=True):
            if TOP_KEY.match(line):
                if current is not None:
                    self.chunks[current] = "".join(lines)
                current, lines = str(next(iter(yaml.safe_load(line.rstrip("\n") + " null") or {None: 0}))), []
            (header if current is None else lines).append(line)
        if current is not None:
            self.chunks[current] = "".join(lines)
        self.header = "".join(header)

    def get(self, label):
        return self.entries.get(label)

    def labels(self):
        return list(self.entries)

    def versions(self):
        """The distinct version sets the entries were recorded under."""
        seen = []
        for entry in self.entries.values():
            v = entry.get("versions") or {}
            if v not in seen:
                seen.append(v)
        return seen

    def write(self, new_entries, removed, document_order):
        """Set the entries in `new_entries`, drop `removed`, keep every other entry's text as it is."""
        order = [label for label in self.entries if label not in removed]
        for label in new_entries:
            if label in order:
                continue
            # Insert after the nearest label that precedes it in the lecture and is already stored.
            before = document_order[:document_order.index(label)] if label in document_order else []
            anchor = next((b for b in reversed(before) if b in order), None)
            order.insert(order.index(anchor) + 1 if anchor else 0, label)
        for label in removed:
            self.entries.pop(label, None)
            self.chunks.pop(label, None)
        for label, entry in new_entries.items():
            self.entries[label] = entry
            self.chunks[label] = dump_entry(label, entry)
        text = self.header + "".join(self.chunks[label] for label in order)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(self.path)
        self.entries = {label: self.entries[label] for label in order}
        self.exists = True
