"""What the check last confirmed, kept where the cache lives: `_build/<lecture>/confirmed.json`.

tests/expected/<lecture>.yaml records, when outputs are accepted, a digest of every file under
code/ and in the lecture's folder (`_files`) and each cell's code digests: the report's "why" (which
file changed since the outputs were recorded) compares with them. A check that passes after files
changed (a comment in code/, a typo fixed, a cell's code rewritten with the same output) records the
files and digests it confirmed here, untracked, instead of rewriting the tracked file: `scripts/check`,
`scripts/render` and `quarto render` never modify a tracked file, and a later drift is still blamed
on the files that changed since its outputs were last seen as expected. Only `--accept` writes
tests/expected/.

A record holds for the expectations file it was made against (its digest): after an accept, a pull
or an edit of that file, the file's own digests are the baseline again. A record that does not read
is ignored (the baseline is then the expectations file's, as on a fresh clone).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lecturekit import inputs
from lecturekit.fsutil import write_atomic
from .records import CodeDigests

RECORD = "confirmed.json"


@dataclass(frozen=True)
class Confirmed:
    files: dict[str, str]  # path relative to the project -> short digest (cause.project_files)
    code: dict[str, CodeDigests]  # label -> cause.code_digests


def _expected_digest(expected: Path) -> str | None:
    """The expectations file's sha256; None when it is no file to read (none, a pipe)."""
    digest = inputs.file(expected)
    return None if digest in inputs.MARKERS else digest


def _path(build_dir: Path, name: str) -> Path:
    return build_dir / name / RECORD


def _digests(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


def load(build_dir: Path, name: str, expected: Path) -> Confirmed | None:
    """The record made against this expectations file as it is now, or None."""
    try:
        data = json.loads(_path(build_dir, name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    digest = _expected_digest(expected)
    if not isinstance(data, dict) or digest is None or data.get("expected") != digest:
        return None
    files, code = data.get("files"), data.get("code")
    if not isinstance(files, dict) or not _digests(files) or not isinstance(code, dict) \
            or not all(_digests(v) for v in code.values()):
        return None
    digests: dict[str, CodeDigests] = {}
    for label, value in code.items():
        if set(value) != {"cell", "before"}:
            return None
        digests[str(label)] = {"cell": value["cell"], "before": value["before"]}
    return Confirmed(dict(files), digests)


def save(build_dir: Path, name: str, expected: Path, confirmed: Confirmed) -> None:
    digest = _expected_digest(expected)
    if digest is None:
        return
    write_atomic(_path(build_dir, name), json.dumps(
        {"expected": digest, "files": confirmed.files, "code": confirmed.code}, indent=1, sort_keys=True).encode("utf-8"))
