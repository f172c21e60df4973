"""Damaged state heals itself: a cache entry or products manifest that does not parse, or has the
wrong shape, is discarded with one warning and built again; the render succeeds."""
import json

import pytest

from test_bad_input import copy, rendered_mini  # noqa: F401  (fixtures)


def cache_entry(mini):
    entries = list((mini.root / "_build" / "cache" / "demo").glob("*.json"))
    assert len(entries) == 1, entries
    return entries[0]


CACHE_DAMAGE = {
    "bad byte": lambda data: data[:40] + b"\xff" + data[41:],
    "truncated": lambda data: data[: len(data) // 2],
    "a list": lambda data: b"[]",
    "runs not a list": lambda data: json.dumps({**json.loads(data), "runs": {"x": 1}}).encode(),
    "a cell without outputs": lambda data: json.dumps(
        {**json.loads(data), "runs": [{"kind": "cell", "seconds": 1}]}).encode(),
    "claims of the wrong shape": lambda data: json.dumps(
        {**json.loads(data), "runs": [{"kind": "prose", "inline": [], "claims": [1]}]}).encode(),
    "no environment": lambda data: json.dumps({**json.loads(data), "environment": None}).encode(),
}


@pytest.mark.parametrize("damage", sorted(CACHE_DAMAGE))
def test_a_damaged_cache_entry_is_discarded_and_rebuilt(copy, damage):  # noqa: F811
    entry = cache_entry(copy)
    entry.write_bytes(CACHE_DAMAGE[damage](entry.read_bytes()))
    result = copy.render()
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    warnings = [line for line in result.stderr.splitlines() if "discarded a damaged cache entry" in line]
    assert len(warnings) == 1 and entry.name in warnings[0], result.stderr
    assert "(executed)" in result.stderr
    json.loads(cache_entry(copy).read_text(encoding="utf-8"))
    again = copy.render()
    assert "cache hit" in again.stderr and "discarded" not in again.stderr, again.stderr


MANIFEST_DAMAGE = {
    "bad byte": b'{"revealjs": \xff}',
    "a list": b"[1, 2]",
    "entries of the wrong shape": b'{"revealjs": "x", "typst": {"inputs": 3}}',
}


@pytest.mark.parametrize("damage", sorted(MANIFEST_DAMAGE))
def test_a_damaged_products_manifest_is_discarded_and_rebuilt(copy, damage):  # noqa: F811
    manifest = copy.root / "_build" / "demo" / "products.json"
    manifest.write_bytes(MANIFEST_DAMAGE[damage])
    result = copy.render()
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    warnings = [line for line in result.stderr.splitlines() if "discarded" in line]
    assert len(warnings) == 1 and "products.json" in warnings[0], result.stderr
    assert set(json.loads(manifest.read_text(encoding="utf-8"))) == {"revealjs", "typst"}
    assert "up to date" in copy.render().stderr


@pytest.mark.parametrize("damage", sorted(MANIFEST_DAMAGE))
def test_damaged_quarto_state_is_discarded_with_one_warning(copy, damage, capsys):  # noqa: F811
    """The products manifest as `quarto render` reads it (`_build/<lecture>/products.json`, which
    pre-render reads) and `_build/quarto-pending.json` (which post-render reads): damaged, they are
    discarded with one warning and the lecture counts as changed, never a traceback."""
    from lecturekit.course import products, quarto_products
    from lecturekit.project import Project
    project = Project(copy.root)
    manifest = copy.root / "_build" / "demo" / products.MANIFEST
    pending = copy.root / "_build" / quarto_products.PENDING
    manifest.write_bytes(MANIFEST_DAMAGE[damage])
    pending.write_bytes(MANIFEST_DAMAGE[damage])
    stale, current = quarto_products.stale_lectures(project)
    assert list(stale) == ["demo"] and current == []
    quarto_products.record(project, [(copy.slides, "_build")])
    warnings = capsys.readouterr().err.splitlines()
    # Discarded once: the damaged file goes, so the second read finds none.
    assert len([w for w in warnings if "products.json: discarded a damaged" in w]) == 1, warnings
    assert len([w for w in warnings if "quarto-pending.json: damaged" in w]) == 1, warnings
    assert json.loads(manifest.read_text(encoding="utf-8")) == {}  # the slides' digest was not pending
