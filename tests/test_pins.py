"""scripts/setup's pins: exact versions, torch the CPU build, a CUDA torch refused before it downloads
unless asked for (then its size is said), an exact install (what no pin needs is removed, and said).

pip runs for real, offline: its configuration is replaced by a folder of tiny hand-made wheels, so
what pip would pick is decided by the same resolver a fresh machine uses.
"""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

from lecturekit.cli import pins  # noqa: E402


def fake_wheel(folder: Path, version: str, requires=(), name="torch", payload=0) -> Path:
    """A wheel with only metadata and an empty package (what pip's dry run reads); `payload` bytes
    of incompressible filler make its size known."""
    path = folder / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    info = f"{name.replace('-', '_')}-{version}.dist-info"
    metadata = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n%s" % (
        name, version, "".join(f"Requires-Dist: {r}\n" for r in requires))
    with zipfile.ZipFile(path, "w") as whl:
        whl.writestr(f"{name.replace('-', '_')}/__init__.py", "")
        if payload:
            whl.writestr(f"{name.replace('-', '_')}/filler.bin", os.urandom(payload), zipfile.ZIP_STORED)
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
    have = pins.installed(python)  # what is installed, whatever the pins say today
    problems = pins.mismatches(python, pins.pins(overrides=["torch==0.0.1+cpu", "numpy==0.0.1"]))
    assert f"torch {have['torch']} is installed, pyproject.toml pins 0.0.1+cpu" in problems, problems
    assert f"numpy {have['numpy']} is installed, pyproject.toml pins 0.0.1" in problems, problems
    # Nothing installed here that no pin needs.
    assert pins.extraneous(python, pins.pins()) == []


def test_a_build_is_labelled_with_its_variant():
    assert pins.build_variant("2.13.0+cpu") == "2.13.0+cpu"
    assert pins.build_variant("2.15.0", cuda="13.2") == "2.15.0+cu132"
    assert pins.build_variant("2.15.0", ["nvidia-cublas-cu13==13.1; platform_system == 'Linux'"]) == "2.15.0+cu13"
    assert pins.build_variant("2.15.0") == "2.15.0"
    # The environment label the check reports reads torch/version.py: this one is the CPU build.
    from lecturekit.execute import cache
    assert cache.environment_versions()["torch"] == pins.installed(Path(sys.executable))["torch"]


def test_a_cuda_torch_is_installed_only_when_asked_and_its_size_is_said(offline_pip, tmp_path):
    fake_wheel(offline_pip, "2.0.1", ["nvidia-cublas-cu12==1.0"], payload=300_000)
    fake_wheel(offline_pip, "1.0", name="nvidia-cublas-cu12", payload=700_000)
    python, said = Path(sys.executable), []
    with pytest.raises(pins.WrongEnvironment, match="--allow-cuda"):
        pins.check_torch_plan(python, {"torch": ("torch", "2.0.1")})
    pins.check_torch_plan(python, {"torch": ("torch", "2.0.1")}, allow_cuda=True, say=said.append)
    sizes = sum(p.stat().st_size for p in offline_pip.iterdir())
    assert said == [f"setup: torch 2.0.1+cu12 is the CUDA build (it runs on the CPU too); with 1 nvidia-*/triton "
                    f"packages it downloads {sizes / 1e9:.1f} GB. Installing it because --allow-cuda was given."]
    assert pins.download_size([p.as_uri() for p in offline_pip.iterdir()]) == sizes
    assert pins.mismatches(python, {"torch": ("torch", pins.installed(python)["torch"])}, allow_cuda=True) == []


def test_an_exact_install_removes_what_no_pin_needs_and_says_so(offline_pip, tmp_path):
    fake_wheel(offline_pip, "2.0.2+cpu", ["helper==1.0", "tester==1.0; extra == 'test'"])
    fake_wheel(offline_pip, "1.0", name="helper")
    fake_wheel(offline_pip, "1.0", name="tester")
    fake_wheel(offline_pip, "1.0", name="nvidia-cublas-cu12")
    fake_wheel(offline_pip, "1.0", name="triton")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "torch==2.0.2+cpu", "tester==1.0",
                    "nvidia-cublas-cu12==1.0", "triton==1.0"], check=True)
    wanted = {"torch": ("torch", "2.0.2+cpu")}
    said = []
    removed = pins.remove_extraneous(venv, wanted, say=said.append)
    assert sorted(removed) == [("nvidia-cublas-cu12", "1.0"), ("tester", "1.0"), ("triton", "1.0")]
    assert said == ["setup: removing 3 package(s) no pin needs: nvidia-cublas-cu12 1.0, tester 1.0, triton 1.0"]
    left = pins.installed(python)
    assert {"torch", "helper", "pip"} <= set(left) and not {"nvidia-cublas-cu12", "triton", "tester"} & set(left)
    assert pins.remove_extraneous(venv, wanted, say=said.append) == [] and len(said) == 1


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


def test_the_lock_holds_every_other_distribution_of_the_venv_exactly():
    """requirements.lock + pyproject.toml's pins name every distribution the venv holds, at the
    version it holds: a venv made on another day from them is this one (a floating fontTools
    subsets the figures' fonts into other bytes, and `git status` shows figures nobody changed)."""
    python = ROOT / ".venv" / "bin" / "python"
    have = pins.installed(python)
    wanted = pins.environment()
    assert set(pins.locked()).isdisjoint(pins.pins())
    aside = {pins.canonical(n) for n in (*pins.ALWAYS_KEPT, pins.project_name())} - {"uv"}
    assert {k for k in have if k not in aside} == set(wanted), "run: python3 -m lecturekit.cli.pins lock"
    assert pins.mismatches(python, wanted) == []
    assert "fonttools" in pins.locked()
    # An upgrade venv takes the pins alone: its torch may need other versions.
    assert set(pins.environment(["torch==2.15.0"])) == set(pins.pins())
