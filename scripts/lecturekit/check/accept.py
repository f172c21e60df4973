"""`--accept`: record the new outputs of the cells that changed (all, or the labels named).

Only entries whose output changed are rewritten, with the versions they now ran under; the others
keep their text. An expectation whose cell is gone (or hidden) is removed. Unlabelled cells and
failed claims cannot be accepted: the lecture has to change.
"""
from lecturekit.errors import LectureError
from .expectations import entry_for
from .run import compare_all

ACCEPTABLE = ("drift", "missing", "stale", "no-longer-raises", "raised-differently")


def accept(checked, project_root, labels=None):
    """Rewrite the changed expectations of one lecture; return the labels rewritten or removed."""
    wanted = set(labels) if labels else None
    new, removed = {}, set()
    for result in checked.results:
        if result.status not in ACCEPTABLE or (wanted is not None and result.label not in wanted):
            continue
        if result.status == "stale":
            removed.add(result.label)
        else:
            new[result.label] = entry_for(result.got, checked.versions, result.cell.digests if result.cell else None)
    if new or removed:
        checked.expectations.write(new, removed, checked.document_order)
        compare_all(checked, project_root)
    return sorted(new, key=_order(checked)) + sorted(removed)


def _order(checked):
    order = checked.document_order
    return lambda label: order.index(label) if label in order else len(order)


def unknown_labels(checkeds, labels):
    """Labels given to --accept that no checked lecture has (as a cell or an expectation)."""
    known = set()
    for checked in checkeds:
        known.update(c.label for c in checked.cells if c.label)
        known.update(checked.expectations.labels())
    missing = [label for label in labels if label not in known]
    if missing:
        raise LectureError(f"--accept: no cell labelled {', '.join(missing)} in the checked lectures")
