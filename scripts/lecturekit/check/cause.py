"""Why a cell's output differs from its expectation: what changed since it was recorded.

Each expectation stores the environment it was recorded under (versions with the build variant,
the CPU, torch's CPU capability and thread count, the BLAS libraries, the output-changing environment
variables) and two code digests: the cell's own code, and everything before it that can change it
(earlier cells and the course code under code/). The expectations file also holds a digest of every
file under code/ and in the lecture's folder (`_files`), written on every accept; a passing check
notes newer ones in _build/ (confirmed.py), which then take their place. Comparing them with this run says whether the environment, the code (naming the files), both
or neither changed; "neither" means the output is not reproducible as written.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lecturekit import inputs
from lecturekit.execute.record import CellRun
from .records import CodeDigests, Entry, Versions

# What is recorded per expectation, in this order.
FINGERPRINT_KEYS = ("python", "torch", "numpy", "cpu", "cpu_capability", "torch_threads", "torch_blas",
                    "numpy_blas", "numpy_blas_core", "env")


def digest(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:12]


def code_digests(cells: Sequence[CellRun], code_dir: Path) -> dict[str, CodeDigests]:
    """Label -> {"cell": digest of its code, "before": digest of code/ and every earlier cell's code}."""
    chain = hashlib.sha256(json.dumps(inputs.tree(code_dir, Path(code_dir).parent)).encode())
    found: dict[str, CodeDigests] = {}
    for cell in cells:
        if cell.label:
            found[cell.label] = {"cell": digest(cell.code), "before": chain.copy().hexdigest()[:12]}
        chain.update(b"\0" + cell.code.encode())
    return found


def project_files(project_root: Path, code_dir: Path, lecture_root: Path) -> dict[str, str]:
    """Path relative to the project -> short digest, of every file under code/ and the lecture folder."""
    found: dict[str, str] = {}
    for folder in (code_dir, lecture_root):
        rel = os.path.relpath(folder, project_root)
        for name, sha in inputs.tree(folder, project_root):
            found[f"{rel}/{name}"] = sha[:12]
    return found


def changed_files(recorded: dict[str, str], now: dict[str, str]) -> list[str]:
    """'path' (changed), 'path (new)', 'path (removed)', sorted; [] when nothing was recorded."""
    if not recorded:
        return []
    out: list[str] = []
    for path in sorted(set(recorded) | set(now)):
        if path not in now:
            out.append(f"{path} (removed)")
        elif path not in recorded:
            out.append(f"{path} (new)")
        elif recorded[path] != now[path]:
            out.append(path)
    return out


def fingerprint(versions: Versions) -> Versions:
    return {k: versions[k] for k in FINGERPRINT_KEYS if versions.get(k) is not None}


def _env_changes(was: dict[str, str], now: dict[str, str]) -> list[str]:
    names = sorted(set(was) | set(now))
    return [f"{n} {was.get(n, '(unset)')} → {now.get(n, '(unset)')}" for n in names if was.get(n) != now.get(n)]


def environment_changes(recorded: Versions, now: Versions) -> list[str]:
    """'name was → now' for every recorded fingerprint entry this run differs in."""
    changes: list[str] = []
    for key in FINGERPRINT_KEYS:
        if key not in recorded:
            continue  # recorded before this entry existed: unknown, not changed
        if key == "env":
            changes += _env_changes(recorded.get("env") or {}, now.get("env") or {})
        elif recorded.get(key) != now.get(key):
            changes.append(f"{key} {recorded.get(key)} → {now.get(key)}")
    return changes


def explain(entry: Entry, digests: CodeDigests | None, versions: Versions, files: list[str] | None = None,
            where: str = "") -> str:
    """One line: what changed between the recorded expectation and this run. `files`: the files
    that changed since the expectations were last confirmed (changed_files), None when unknown."""
    env = environment_changes(entry.get("versions") or {}, versions)
    recorded = entry.get("code")
    code: list[str] = []
    if recorded and digests:
        if recorded.get("cell") != digests.get("cell"):
            code.append(f"this cell's code ({where})" if where else "this cell's code")
        if recorded.get("before") != digests.get("before"):
            code.append("files: " + ", ".join(files) if files
                        else "an earlier cell or the course code (code/)")
    elif files:
        code.append("files: " + ", ".join(files))
    parts = []
    if env:
        parts.append("the environment changed (" + "; ".join(env) + ")")
    if code:
        parts.append("the code changed (" + " and ".join(code) + ")")
    if parts:
        return "why: " + ", and ".join(parts)
    if not recorded and files is None:
        return ("why: the environment is the same; the code is unknown (recorded without code digests: "
                "--accept records them)")
    return ("why: neither the code nor the environment changed: the output is not reproducible as written "
            "(time, unseeded randomness, thread scheduling?)")
