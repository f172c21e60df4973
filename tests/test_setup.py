"""scripts/setup on a machine that has none of the Debian packages: it installs them (root) or names
the exact apt-get line (not root), and no failure goes without a word.

Stand-ins for dpkg-query, apt-get and id on PATH play the fresh machine; the rest of setup runs as it
is (on this checkout, already set up, its other steps change nothing). The real first contact, the
README's commands in a clean Debian 12 root, is `scripts/first-contact` (docs/testing.md).
"""
import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = "fonts-noto-core fonts-dejavu-core graphviz chromium poppler-utils"


def _stand_in(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def fresh_machine(tmp_path: Path, *, uid: int, apt_status: int = 0) -> dict[str, str]:
    """PATH with a dpkg-query that knows no package (and exits 1, as dpkg-query does), an apt-get
    that logs its arguments, and an id that says `uid`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "apt.log"
    _stand_in(bin_dir, "dpkg-query", 'for p; do case "$p" in -*) ;; *) echo "dpkg-query: no packages found matching $p" >&2;; esac; done; exit 1')
    _stand_in(bin_dir, "apt-get", f'echo "$*" >> {log}; exit {apt_status}')
    _stand_in(bin_dir, "id", f'echo {uid}')
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


def apt_calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "apt.log"
    return log.read_text().splitlines() if log.exists() else []


def test_as_root_it_installs_every_missing_package_and_goes_on(tmp_path):
    env = fresh_machine(tmp_path, uid=0)
    run = subprocess.run([ROOT / "scripts" / "setup"], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    calls = apt_calls(tmp_path)
    assert calls[0].startswith("update"), calls
    install = next(c for c in calls if c.startswith("install"))
    assert install.split()[-5:] == PACKAGES.split(), install
    assert f"setup: apt-get install {PACKAGES}" in run.stderr


def test_not_root_it_names_the_apt_get_line_and_stops(tmp_path):
    env = fresh_machine(tmp_path, uid=1000)
    run = subprocess.run([ROOT / "scripts" / "setup"], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert apt_calls(tmp_path) == []
    assert f"run: sudo apt-get install -y {PACKAGES}" in run.stderr, run.stderr


@pytest.mark.parametrize("status", [100])
def test_a_failing_install_says_what_failed_and_where(tmp_path, status):
    env = fresh_machine(tmp_path, uid=0, apt_status=status)
    run = subprocess.run([ROOT / "scripts" / "setup"], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == status
    line = re.search(rf"setup: failed \(exit {status}\) at scripts/setup:(\d+): (.+)", run.stderr)
    assert line, run.stderr
    source = (ROOT / "scripts" / "setup").read_text().splitlines()
    assert "apt-get" in source[int(line.group(1)) - 1] and "apt-get" in line.group(2)
    assert "run scripts/setup again" in run.stderr
