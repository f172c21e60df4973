"""The execution cache: results of one lecture's execution, keyed by everything that could change them.

Quarto's `freeze` looks only at the source; we also key on the course code and the library versions,
so a PyTorch upgrade can never show stale outputs. Prose is not in the key: fixing a typo in a
sentence re-renders without starting a kernel.
"""
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from . import qmd

CACHE_FORMAT = 2  # bump when the layout of a cache entry changes

# Runs here or in another environment's interpreter, so it must need nothing but the stdlib.
_VERSIONS_PROBE = """
def versions():
    import importlib.metadata as m, platform
    def v(name):
        try:
            return m.version(name)
        except m.PackageNotFoundError:
            return None
    return {"python": platform.python_version(), "torch": v("torch"), "numpy": v("numpy"),
            "ipykernel": v("ipykernel"), "matplotlib": v("matplotlib")}
"""


def environment_versions(python=None):
    """Versions of the interpreter that will run the kernel, read without importing torch."""
    if python is None or Path(python).resolve() == Path(sys.executable).resolve():
        # The kernel runs this very environment: read the versions here, no second interpreter.
        scope = {}
        exec(_VERSIONS_PROBE, scope)
        return scope["versions"]()
    probe = _VERSIONS_PROBE + "\nimport json\nprint(json.dumps(versions()))"
    out = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def file_digests(folder, skip_suffixes=()):
    """(relative path, sha256) of every file under folder, in order."""
    digests = []
    folder = Path(folder)
    if not folder.exists():
        return digests
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix in skip_suffixes:
            continue
        digests.append((path.relative_to(folder).as_posix(), hashlib.sha256(path.read_bytes()).hexdigest()))
    return digests


def execution_key(lecture, code_dir, versions):
    """Hash of what the kernel sees: the code, its inputs, course code and library versions."""
    h = hashlib.sha256()

    def feed(obj):
        h.update(json.dumps(obj, sort_keys=True, ensure_ascii=False).encode())
        h.update(b"\0")

    feed({"format": CACHE_FORMAT, "versions": versions})
    for block in lecture.blocks:
        if isinstance(block, qmd.Cell):
            feed(["cell", block.code, block.options])
        else:
            # Claims' sentences are prose; only their expressions run in the kernel.
            feed(["inline", qmd.inline_expressions(block.text), [e for _, e in qmd.claim_expressions(block.text)]])
    feed(["code", file_digests(code_dir)])
    # Data files next to the lecture can be read by cells; the prose (.qmd) is not part of the key.
    feed(["lecture-files", file_digests(lecture.root, skip_suffixes=(".qmd",))])
    return h.hexdigest()


class ExecutionCache:
    """One JSON file per lecture and key; writes are atomic so a crash never leaves half an entry."""

    KEEP = 4

    def __init__(self, folder):
        self.folder = Path(folder)

    def _path(self, lecture_name, key):
        return self.folder / lecture_name / f"{key[:32]}.json"

    def load(self, lecture_name, key):
        path = self._path(lecture_name, key)
        if not path.exists():
            return None
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return None
        return entry if entry.get("key") == key else None

    def store(self, lecture_name, key, results):
        path = self._path(lecture_name, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"key": key, **results}, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
        # Keep a few recent entries (e.g. two environments compared in turn), drop the rest.
        entries = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[self.KEEP:]:
            old.unlink(missing_ok=True)
