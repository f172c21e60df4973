"""scripts/setup's pins: exact versions, torch the CPU build, a CUDA torch refused before it downloads.

pip runs for real, offline: its configuration is replaced by a folder of tiny hand-made wheels, so
what pip would pick is decided by the same resolver a fresh machine uses.
"""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

from lecturekit.cli import pins  # noqa: E402


def fake_wheel(folder: Path, version: str, requires=()) -> Path:
    """A wheel named torch with only metadata and an empty package (what pip's dry run reads)."""
    path = folder / f"torch-{version}-py3-none-any.whl"
    info = f"torch-{version}.dist-info"
    metadata = "Metadata-Version: 2.1\nName: torch\nVersion: %s\n%s" % (
        version, "".join(f"Requires-Dist: {r}\n" for r in requires))
    with zipfile.ZipFile(path, "w") as whl:
        whl.writestr("torch/__init__.py", "")
        whl.writestr(f"{info}/METADATA", metadata)
        whl.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        whl.writestr(f"{info}/RECORD", "")
    return path


@pytest.fixture
def offline_pip(tmp_path, monkeypatch):
    """pip sees only tmp_path/wheels: no index, no machine-wide config or constraints."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    monkeypatch.delenv("PIP_CONSTRAINT", raising=False)
    return wheels


def test_a_cpu_build_is_the_cpu_label_without_nvidia_requirements():
    assert pins.is_cpu_build("2.13.0+cpu")
    assert not pins.is_cpu_build("2.13.0")  # PyPI's Linux wheel: the CUDA build
    assert not pins.is_cpu_build("2.15.0+cu132")
    assert not pins.is_cpu_build("2.13.0+cpu", ["nvidia-cublas-cu12==12.1; platform_system == 'Linux'"])


def test_every_dependency_is_pinned_exactly_and_torch_is_the_cpu_build():
    wanted = pins.pins()
    assert pins.is_cpu_build(wanted["torch"][1])
    assert pins.pins(overrides=["torch==2.14.1+cpu"])["torch"] == ("torch", "2.14.1+cpu")
    with pytest.raises(pins.WrongEnvironment, match="pinned exactly"):
        pins.pins(overrides=["torch>=2"])


def test_this_environment_matches_its_pins_and_a_different_pin_is_named():
    python = Path(sys.executable)
    assert pins.mismatches(python, pins.pins()) == []
    problems = pins.mismatches(python, pins.pins(overrides=["torch==2.14.1+cpu", "numpy==9.9.9"]))
    assert any(p.startswith("torch 2.13.0+cpu is installed, pyproject.toml pins 2.14.1+cpu") for p in problems)
    assert any(p.startswith("numpy 2.4.6 is installed, pyproject.toml pins 9.9.9") for p in problems)


def test_a_cuda_torch_is_refused_before_anything_downloads(offline_pip, tmp_path):
    fake_wheel(offline_pip, "2.0.1", ["nvidia-cublas-cu12==12.1.3.1; platform_system == 'Linux'"])
    fake_wheel(offline_pip, "2.0.2+cpu")
    python = Path(sys.executable)
    plan = pins.planned_torch(python, "torch==2.0.1")
    assert plan["version"] == "2.0.1" and plan["nvidia"] == ["nvidia-cublas-cu12==12.1.3.1"]
    with pytest.raises(pins.WrongEnvironment, match=r"CUDA build, which needs nvidia-cublas-cu12.*torch==2.0.1\+cpu"):
        pins.check_torch_plan(python, {"torch": ("torch", "2.0.1")})
    pins.check_torch_plan(python, {"torch": ("torch", "2.0.2+cpu")})  # the CPU build passes
    with pytest.raises(pins.WrongEnvironment, match="pip finds no torch==2.0.3.*download.pytorch.org/whl/cpu"):
        pins.check_torch_plan(python, {"torch": ("torch", "2.0.3")})


def test_setup_for_another_venv_stops_with_one_message_and_status_3(offline_pip, tmp_path):
    fake_wheel(offline_pip, "2.0.1", ["nvidia-cudnn-cu12==9.1.0.70"])
    run = subprocess.run([str(ROOT / "scripts" / "setup"), "--venv", "venv-next", "--pin", "torch==2.0.1"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == pins.WRONG_ENVIRONMENT, run.stderr
    lines = run.stderr.strip().split("\n")
    assert lines[0] == f"setup: creating {tmp_path / 'venv-next'}"  # relative to where it was typed
    assert len(lines) == 2 and "a CUDA build, which needs nvidia-cudnn-cu12" in lines[1]
    assert "Nothing was installed" in lines[1]
    assert not list((tmp_path / "venv-next").glob("lib/python3*/site-packages/numpy"))


def test_pips_own_settings_reach_uv(monkeypatch, tmp_path):
    """uv installs the pins but reads no pip configuration: the indexes, find-links and constraints
    pip would use are handed to it, so both pick the same files."""
    config = tmp_path / "pip.conf"
    config.write_text("[global]\nfind-links = /srv/wheels\nextra-index-url = file:///a/simple file:///b/simple\n"
                      "constraint = /etc/c.txt\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    settings = pins.pip_settings(Path(sys.executable))
    args = pins.uv_arguments(settings)
    assert args[:2] == ["--index-strategy", "unsafe-best-match"]
    pairs = list(zip(args[2::2], args[3::2]))
    # The named file is read after the machine-wide ones: its values win, as they do for pip.
    for pair in [("--extra-index-url", "file:///a/simple"), ("--extra-index-url", "file:///b/simple"),
                 ("--find-links", "/srv/wheels"), ("--constraint", "/etc/c.txt")]:
        assert pair in pairs
    assert [p for p in pairs if p[0] == "--constraint"] == [("--constraint", "/etc/c.txt")]
    assert "uv" in pins.pins()  # the installer is pinned like everything else
