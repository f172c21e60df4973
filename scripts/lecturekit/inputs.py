"""What the kit's records of "still valid?" are computed from, digested in one place.

Six records decide whether something must be done again, each from its own composition of the
same inputs: the execution key (execute/cache.py: what changes an output), each product's inputs
(course/build/products.py), the stamps (course/build/stamp.py: everything a render reads), the
confirmed digests (check/confirmed.py, check/cause.py), the markup verdicts (read/markup.py) and
the search documents (course/site/pages.py). Every digest of a file, a folder, an installed version
or the machine they hold comes from here, so two records never disagree about one file.

- `file`, `data`: a file's sha256 (hex), read only when it is a regular file, and with `inside` only when
  it resolves into that folder (a link out of the project is not ours to read, a pipe would block).
  Anything else gives a marker (`ABSENT`, `OUTSIDE`, `SPECIAL`) and the render that reads it refuses it.
- `tree`: (path relative to the folder, `file`) of every file under a folder, in path order;
  `__pycache__` and `.pyc` are skipped, a linked folder is not followed.
- `installed`, `versions`, `version`: the interpreter's distributions and the libraries' versions.
- `machine`: the CPU as far as it can change an output. (The kernel's output-changing environment
  is the executor's: execute/kernelenv.py's `output_env`.)
- `kit`: the kit's own code (this package's files).

A file's digest is remembered for the process, with the file's identity and times: a file seen
unchanged (same inode, size, modification and change time) is not read again, so a render that
stamps, keys and plans every lecture reads each file once. A file changed within the last
`SETTLED_NS` is not remembered: a second write in the same tick of the clock could keep its times.
Within `read_once()` (a step that keys or checks many lectures and writes none of their inputs),
each folder is listed once too: code/ is the same for every lecture.

Stdlib only: the executor's key and Quarto's pre-render import it.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import io
import json
import os
import stat
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

KIT = Path(__file__).resolve().parent  # scripts/lecturekit
SKIPPED_FOLDERS = ("__pycache__",)
SKIPPED_SUFFIXES = (".pyc",)

# What a file that is not read gives instead of its digest.
ABSENT = "none"
OUTSIDE = "outside"
SPECIAL = "not a regular file"
MARKERS = (ABSENT, OUTSIDE, SPECIAL)

SETTLED_NS = 2_000_000_000
# {absolute path: ((device, inode, size, mtime, ctime), digest)}
_remembered: dict[str, tuple[tuple[int, ...], str]] = {}


def _identity(found: os.stat_result) -> tuple[int, ...]:
    return (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def _sha256(f: Any) -> str:
    """The one digest of a file's bytes (`f`: opened for reading)."""
    return hashlib.file_digest(f, "sha256").hexdigest()


def data(found: bytes) -> str:
    """The sha256 (hex) of bytes read already (an executed notebook in memory), as `file` digests a file."""
    return _sha256(io.BytesIO(found))


def _digest(path: str) -> str:
    """The sha256 of the file at `path`, or SPECIAL/ABSENT; remembered while it stays as it is."""
    try:
        seen = os.stat(path)
    except OSError:
        return ABSENT
    kept = _remembered.get(path)
    if kept is not None and stat.S_ISREG(seen.st_mode) and kept[0] == _identity(seen):
        return kept[1]
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a pipe opened without waiting, judged below
    except OSError:
        return ABSENT
    with os.fdopen(fd, "rb") as f:
        opened = os.fstat(f.fileno())
        if not stat.S_ISREG(opened.st_mode):
            return SPECIAL
        digest = _sha256(f)
    if opened.st_ctime_ns < time.time_ns() - SETTLED_NS:
        _remembered[path] = (_identity(opened), digest)
    return digest


def _inside(path: str, folder: str) -> bool:
    resolved = os.path.realpath(path)
    return resolved == folder or resolved.startswith(folder + os.sep)


def file(path: Path | str, inside: Path | str | None = None) -> str:
    """The file's sha256 (hex); with `inside`, only when it resolves into that folder (OUTSIDE
    otherwise). SPECIAL for a pipe, socket or device, ABSENT for no file."""
    path = os.path.abspath(path)
    if inside is not None and not _inside(path, os.path.realpath(inside)):
        return OUTSIDE if os.path.lexists(path) else ABSENT
    return _digest(path)


# Within read_once(): each folder's tree, listed once. {(folder, inside): tree}
_TREES: contextvars.ContextVar[dict[tuple[str, str | None], list[tuple[str, str]]] | None] = \
    contextvars.ContextVar("trees_read_once", default=None)


@contextlib.contextmanager
def read_once() -> Iterator[None]:
    """Within it, `tree` lists each folder once: for a step that keys or checks many lectures and
    writes none of their inputs (a course build's plan, `scripts/plan`, `scripts/check`)."""
    token = _TREES.set({})
    try:
        yield
    finally:
        _TREES.reset(token)


def tree(folder: Path | str, inside: Path | str | None = None) -> list[tuple[str, str]]:
    """(path relative to `folder`, `file`) of every file under it, ordered by path (folder by
    folder); [] when there is no such folder, [(".", OUTSIDE)] when it resolves out of `inside`."""
    trees = _TREES.get()
    if trees is None:
        return _tree(folder, inside)
    key = (os.path.abspath(folder), None if inside is None else os.path.abspath(inside))
    if key not in trees:
        trees[key] = _tree(folder, inside)
    return trees[key]


def _tree(folder: Path | str, inside: Path | str | None) -> list[tuple[str, str]]:
    top = os.path.abspath(folder)
    if not os.path.isdir(top):
        return []
    within = os.path.realpath(inside if inside is not None else top)
    if not _inside(top, within):
        return [(".", OUTSIDE)]
    found: list[tuple[tuple[str, ...], str]] = []

    def walk(at: str, parts: tuple[str, ...]) -> None:
        with os.scandir(at) as entries:
            for entry in entries:
                link = entry.is_symlink()
                if entry.is_dir():
                    if not link and entry.name not in SKIPPED_FOLDERS:  # a linked folder is not followed
                        walk(entry.path, (*parts, entry.name))
                    continue
                if entry.name.endswith(SKIPPED_SUFFIXES):
                    continue
                # Below a folder inside, only a link can lead out.
                if link and not _inside(entry.path, within):
                    found.append(((*parts, entry.name), OUTSIDE))
                else:
                    found.append(((*parts, entry.name), _digest(entry.path)))

    walk(top, ())
    found.sort(key=lambda item: item[0])
    return [("/".join(parts), digest) for parts, digest in found]


def kit() -> list[tuple[str, str]]:
    """The kit's own code: every file of this package, from scripts/."""
    return [(f"{KIT.name}/{name}", digest) for name, digest in tree(KIT, KIT.parent)]


def executable(path: Path | str) -> str:
    """A program by its path, size and time (hashing a pandoc binary would cost more than the check
    its identity saves)."""
    found = os.stat(path)
    return f"{path}:{found.st_size}:{found.st_mtime_ns}"


def installed() -> list[list[Any]]:
    """Every installed distribution of this interpreter (name-version.dist-info) with its time: an
    upgrade, a reinstall or a new package changes it."""
    found: list[list[Any]] = []
    for key in ("purelib", "platlib"):
        folder = Path(sysconfig.get_paths()[key])
        try:
            entries = sorted((e for e in os.scandir(folder) if e.name.endswith((".dist-info", ".egg-info", ".pth"))),
                             key=lambda e: e.name)
        except OSError:
            continue
        found += [[key, e.name, e.stat().st_mtime_ns] for e in entries]
    return found


def version(package: str) -> str | None:
    """The installed version of one distribution of this interpreter, None when there is none."""
    import importlib.metadata
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


# Runs here or in another environment's interpreter, so it must need nothing but the stdlib.
_VERSIONS_PROBE = """
def versions():
    import importlib.metadata as m, platform
    def v(name):
        try:
            return m.version(name)
        except m.PackageNotFoundError:
            return None
    def torch_build():
        # PyPI's CUDA wheel carries no +label: name its CUDA from torch/version.py (no torch import).
        version = v("torch")
        if version is None or "+" in version:
            return version
        import re
        try:
            text = m.distribution("torch").locate_file("torch/version.py").read_text()
        except OSError:
            return version
        cuda = re.search(r"^cuda[^=]*=\\s*'([\\d.]+)'", text, re.M)
        return f"{version}+cu{cuda.group(1).replace('.', '')}" if cuda else version
    return {"python": platform.python_version(), "torch": torch_build(), "numpy": v("numpy"),
            "ipykernel": v("ipykernel"), "matplotlib": v("matplotlib")}
"""


def versions(python: Path | str | None = None) -> dict[str, Any]:
    """The versions that can change a lecture's outputs, of the interpreter that will run the kernel
    (with the build variant: 2.13.0+cpu is not 2.13.0+cu128), read without importing torch."""
    # A venv's bin/python is a symlink to the base interpreter: resolving it would take another venv
    # for this one. Only this very path (or none) is read in-process.
    if python is None or os.path.abspath(python) == os.path.abspath(sys.executable):
        scope: dict[str, Any] = {}
        exec(_VERSIONS_PROBE, scope)
        found: dict[str, Any] = scope["versions"]()
        return found
    probe = _VERSIONS_PROBE + "\nimport json\nprint(json.dumps(versions()))"
    out = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True)
    there: dict[str, Any] = json.loads(out.stdout)
    return there


_ISA_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16", "amx_tile")


@functools.cache
def machine() -> dict[str, Any]:
    """The CPU as far as it can change an output: vendor/model and the vector instructions present
    (they choose ATen's and the BLAS libraries' kernels)."""
    found: dict[str, Any] = {"cpu": None, "isa": []}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                name, _, value = line.partition(":")
                if name.strip() == "model name" and found["cpu"] is None:
                    found["cpu"] = value.strip()
                elif name.strip() == "flags":
                    flags = set(value.split())
                    found["isa"] = [f for f in _ISA_FLAGS if f in flags]
                    break
    except OSError:
        pass
    return found
