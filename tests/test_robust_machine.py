"""Faults of the machine, not the lecture: a read-only `_output`, a full disk under `_build/cache`
or `_output`. Each is one line naming the path and the cause, exit 1, nothing half-written.

The faults are real: a read-only bind mount and small tmpfs mounts (root's privilege; without it
the tests say so and are skipped), and an injected ENOSPC for the writes every stage shares.
"""
import contextlib
import errno
import subprocess
from pathlib import Path

import pytest

from lecturekit import fsutil
from test_bad_input import products
from test_pipeline import GOOD


def _mount(*args):
    return subprocess.run(["mount", *args], capture_output=True, text=True)


@contextlib.contextmanager
def mounted(target, *args):
    result = _mount(*args, str(target))
    if result.returncode != 0:
        pytest.skip(f"cannot mount here (needs root and CAP_SYS_ADMIN): {result.stderr.strip()}")
    try:
        yield target
    finally:
        subprocess.run(["umount", "-l", str(target)], check=True)


@contextlib.contextmanager
def read_only(folder):
    with mounted(folder, "--bind", str(folder)):
        result = _mount("-o", "remount,ro,bind", str(folder))
        assert result.returncode == 0, result.stderr
        yield folder


def assert_one_line(result, path_part, cause, also=()):
    """The lecture's error: one line with path and cause (and `also`: one such line for each other
    product the same fault stopped, such as the course page)."""
    err = result.stderr
    assert result.returncode == 1, err
    assert "Traceback" not in err and "CallStack" not in err and "hPutBuf" not in err, err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 + len(also), err
    assert path_part in errors[0] and cause in errors[0], err
    for line, part in zip(errors[1:], also):
        assert part in line and cause in line, err
    assert "lecture(s):" in err  # the summary is still printed


def test_read_only_output_is_one_line(copy):  # noqa: F811
    before = products(copy)
    copy.write(GOOD.replace("খাতায় ওঠে", "খাতায় লেখা হয়"))
    with read_only(copy.root / "_output"):
        result = copy.render()
        assert_one_line(result, "_output/demo", "Read-only file system", also=["course page: "])
        assert products(copy) == before
        assert not list((copy.root / "_output" / "demo").glob(".*.tmp"))


def test_full_disk_under_the_cache_is_one_line(copy):  # noqa: F811
    before = products(copy)
    cache = copy.root / "_build" / "cache"
    with mounted(cache, "-t", "tmpfs", "-o", "size=4k", "tmpfs"):
        (cache / "filler").write_bytes(b"x")  # the one page this disk has
        result = copy.render("--fresh")
        assert_one_line(result, "_build/cache/demo", "No space left on device")
        # No half entry, no 0-byte temporary file.
        assert [p.name for p in cache.rglob("*") if p.is_file()] == ["filler"]
    assert products(copy) == before


def test_full_output_disk_is_one_line_without_pandoc_backtrace(copy):  # noqa: F811
    copy.write(GOOD.replace("খাতায় ওঠে", "খাতায় লেখা হয়"))
    out = copy.root / "_output" / "demo"
    with mounted(out, "-t", "tmpfs", "-o", "size=256k", "tmpfs"):
        result = copy.render()
        assert_one_line(result, "_output/demo/", "No space left on device")
        assert list(out.iterdir()) == []  # nothing half-written, no temporary file
    assert (out / "slides.html").exists()  # the old products, under the mount, untouched


def test_a_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    """The write every stage shares (cache entries, manifests, notebooks, figures), with ENOSPC
    injected after half the bytes."""
    target = tmp_path / "entry.json"
    target.write_bytes(b"old")

    real = Path.write_bytes

    def half_then_full(self, data):
        real(self, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device", str(self))
    monkeypatch.setattr(Path, "write_bytes", half_then_full)
    with pytest.raises(OSError):
        fsutil.write_atomic(target, b"new bytes")
    monkeypatch.undo()
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["entry.json"]
