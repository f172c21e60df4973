"""`--accept`: record the new outputs (of every changed cell, or of the labels named) and rewrite
every entry of the lecture's expectations file.

Every entry gets this run's versions and code digests, and the file gets this run's file digests and
prose values, so no entry is left with a stale cause. With labels, only those cells' outputs are
taken; another cell that still differs keeps its old output and versions (its drift stays reported).
An expectation whose cell is gone (or hidden) is removed. Unlabelled cells and failed claims cannot
be accepted: the lecture has to change.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from lecturekit.errors import LectureError
from .normalise import Item
from .records import Entry
from .run import Checked, compare_all, rewrite

ACCEPTABLE = ("drift", "missing", "stale", "no-longer-raises", "raised-differently")


def accept(checked: Checked, project_root: Path, labels: Iterable[str] | None = None) -> list[str]:
    """Rewrite one lecture's expectations; return the labels whose output was recorded or removed."""
    wanted = set(labels) if labels else None
    store = checked.expectations
    outputs: dict[str, list[Item] | None] = {}
    taken: list[str] = []
    removed: list[str] = []
    kept: list[str] = []
    for result in checked.results:
        chosen = wanted is None or result.label in wanted
        entry = store.get(result.label)
        if result.status == "stale":
            if chosen:
                removed.append(result.label)
            else:
                outputs[result.label] = (entry.get("outputs") if entry else None) or []
            continue
        if result.status == "unlabelled":
            continue
        if result.status in ACCEPTABLE and chosen:
            outputs[result.label] = result.got
            taken.append(result.label)
        elif result.status in ACCEPTABLE:
            outputs[result.label] = entry.get("outputs") or [] if entry else None
            kept.append(result.label)
        else:  # as expected: exactly, or within its tolerance (then the new text is taken when accepting all)
            outputs[result.label] = result.got if (chosen and result.within) else result.expected
    chosen_outputs = {k: v for k, v in outputs.items() if v is not None}
    if wanted is None or not kept:
        rewrite(checked, chosen_outputs, project_root)
    else:
        # Cells still differing keep the versions their output was recorded under.
        _rewrite_keeping(checked, chosen_outputs, kept, project_root)
    return taken + removed


def _rewrite_keeping(checked: Checked, outputs: dict[str, list[Item]], kept: Sequence[str], project_root: Path) -> None:
    store = checked.expectations
    old: dict[str, Entry] = {label: entry.copy() for label in kept if (entry := store.get(label))}
    old_files, old_prose = dict(store.files), list(store.prose)
    rewrite(checked, outputs, project_root)
    entries = dict(store.entries)
    entries.update(old)
    store.rewrite(entries, old_files or store.files, old_prose or store.prose)
    compare_all(checked, project_root)


def unknown_labels(checkeds: Sequence[Checked], labels: Sequence[str]) -> None:
    """Labels given to --accept that no checked lecture has (as a cell or an expectation)."""
    known: set[str] = set()
    for checked in checkeds:
        known.update(c.label for c in checked.cells if c.label)
        known.update(checked.expectations.labels())
    missing = [label for label in labels if label not in known]
    if missing:
        raise LectureError(f"--accept: no cell labelled {', '.join(missing)} in the checked lectures")
