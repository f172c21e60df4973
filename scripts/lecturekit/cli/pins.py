"""The Python environment, exactly as pyproject.toml pins it; torch always the CPU build.

    python3 -m lecturekit.cli.pins install [--venv DIR] [--pin NAME==VERSION ...]
    python3 -m lecturekit.cli.pins verify  [--venv DIR]

`install` makes (or updates) the venv: it first asks pip which torch it would pick (a dry run that
reads metadata only) and stops, before anything is downloaded, when that is not a CPU build: on
PyPI a plain `torch` for Linux is the CUDA build and pulls several GB of nvidia-* packages. Then it
installs the pins and verifies them. `--pin` overrides a pin for this venv only: the next version's
environment for `scripts/check --compare-python` (`--venv ../venv-next --pin torch==2.14.1+cpu`).

The packages go in with uv when pyproject.toml pins it (pip installs that one pin first): a fresh
venv in about 10 s instead of pip's 1.5 min, the same versions (verified after every install). uv
does not read pip's configuration, so pip's own (`pip config list`: find-links, extra indexes,
constraints) is passed to it.

`verify` reads the installed versions (importlib.metadata; no torch import) and names every package
whose version differs from its pin, and a torch that is not a CPU build. Stdlib only: it runs
before the venv exists.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PIN = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*==\s*([^\s;]+)\s*$")
# Status when the environment cannot be made or is not what the pins say (not 1: a failed command).
WRONG_ENVIRONMENT = 3


class WrongEnvironment(Exception):
    """What is wrong, in words an author can act on."""


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(pyproject: Path = ROOT / "pyproject.toml", overrides=()) -> dict:
    """{canonical name: (name as written, version)} from [project] dependencies, then the overrides."""
    found = {}
    for line in list(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]) + list(overrides):
        match = PIN.match(line)
        if not match:
            raise WrongEnvironment(f"{line!r}: every dependency must be pinned exactly (name==version)")
        found[canonical(match.group(1))] = (match.group(1), match.group(2))
    return found


def is_cpu_build(version: str, requires=()) -> bool:
    """A torch wheel built without CUDA/ROCm: the +cpu label, and no nvidia-* requirements."""
    label = version.partition("+")[2]
    return label == "cpu" and not any(canonical(r).startswith("nvidia-") for r in requires)


def _venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def installed(python: Path) -> dict:
    """{canonical name: version} of the distributions the interpreter sees."""
    probe = ("import importlib.metadata as m, json\n"
             "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions() if d.metadata['Name']}))")
    out = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True).stdout
    return {canonical(k): v for k, v in json.loads(out).items()}


def mismatches(python: Path, wanted: dict) -> list:
    """One line per pinned package whose installed version differs, or torch not built for the CPU."""
    have = installed(python)
    problems = []
    for key, (name, version) in wanted.items():
        got = have.get(key)
        if got is None:
            problems.append(f"{name} {version} is pinned but not installed")
        elif got != version:
            problems.append(f"{name} {got} is installed, pyproject.toml pins {version}")
    torch = have.get("torch")
    if torch and not is_cpu_build(torch):
        problems.append(f"torch {torch} is not the CPU build (+cpu): its outputs are not the ones the "
                        "lectures record, and it carries several GB of CUDA libraries")
    return problems


def planned_torch(python: Path, requirement: str) -> dict:
    """What pip would install for the torch pin: name, version, where from, its nvidia-* needs.
    A dry run with --no-deps: metadata only, nothing of the wheel's gigabytes."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        run = subprocess.run([str(python), "-m", "pip", "install", "--dry-run", "--quiet", "--no-deps",
                              "--ignore-installed", "--report", str(report), requirement],
                             capture_output=True, text=True)
        if run.returncode != 0 or not report.exists():
            first = [line for line in run.stderr.strip().split("\n") if line.startswith("ERROR")] or [run.stderr.strip()]
            raise WrongEnvironment(f"pip finds no {requirement} ({first[0][:200]}); the CPU wheels are on "
                                   "https://download.pytorch.org/whl/cpu: run again with "
                                   "PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu")
        item = json.loads(report.read_text())["install"][0]
    meta = item["metadata"]
    nvidia = [r.split(";")[0].strip() for r in meta.get("requires_dist", []) if canonical(r).startswith("nvidia-")]
    return {"version": meta["version"], "url": item["download_info"]["url"], "nvidia": nvidia}


def check_torch_plan(python: Path, wanted: dict) -> None:
    if "torch" not in wanted:
        return
    name, version = wanted["torch"]
    plan = planned_torch(python, f"{name}=={version}")
    if not is_cpu_build(plan["version"], plan["nvidia"]):
        needs = f", which needs {', '.join(plan['nvidia'][:3])} …" if plan["nvidia"] else ""
        raise WrongEnvironment(
            f"pip would install torch {plan['version']} from {plan['url']}: a CUDA build{needs} (several GB). "
            f"Pin the CPU build in pyproject.toml (torch=={plan['version'].partition('+')[0]}+cpu) and make its "
            "wheel reachable (PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu or a local wheel in "
            "pip's find-links). Nothing was installed.")


def pip_settings(python: Path) -> dict:
    """pip's configuration as `pip config list` shows it (files and PIP_* variables): key -> values."""
    out = subprocess.run([str(python), "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():  # listed in pip's loading order: a later source overrides
        key, _, value = line.partition("=")
        found[key.rpartition(".")[2]] = value.strip().strip("'\"").split()
    return found


def uv_arguments(settings: dict) -> list:
    """pip's index settings as uv options; pip takes the best version over all indexes, so uv must too."""
    args = ["--index-strategy", "unsafe-best-match"]
    for url in settings.get("index-url", [])[:1]:
        args += ["--index-url", url]
    for option in ("extra-index-url", "find-links", "constraint"):
        for value in settings.get(option, []):
            args += [f"--{option}", value]
    return args


def install(venv: Path, overrides=(), say=print) -> None:
    wanted = pins(overrides=overrides)
    python = _venv_python(venv)
    if not python.exists():
        say(f"setup: creating {venv}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    problems = mismatches(python, wanted)
    if not problems:
        return
    for problem in problems:
        if not problem.endswith("not installed"):  # a fresh venv lacks everything: nothing to report
            say(f"setup: {problem}")
    check_torch_plan(python, wanted)
    requirements = venv / "requirements.txt"
    requirements.write_text("\n".join(f"{name}=={version}" for name, version in wanted.values()) + "\n")
    uv = wanted.get("uv")
    tool = "uv" if uv else "pip"
    say(f"setup: {tool} install into {venv} (pinned in pyproject.toml"
        + (f", with {' '.join(overrides)}" if overrides else "") + ")")
    if uv:
        subprocess.run([str(python), "-m", "pip", "install", "-qq", f"{uv[0]}=={uv[1]}"], check=True)
        subprocess.run([str(venv / "bin" / "uv"), "pip", "install", "-q", "--python", str(python),
                        *uv_arguments(pip_settings(python)), "-r", str(requirements)], check=True)
    else:
        subprocess.run([str(python), "-m", "pip", "install", "-q", "-r", str(requirements)], check=True)
    problems = mismatches(python, wanted)
    if problems:
        raise WrongEnvironment(f"after {tool} install: " + "; ".join(problems))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="lecturekit.cli.pins", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("install", "verify"))
    parser.add_argument("--venv", default=str(ROOT / ".venv"), help="the venv (default: the project's .venv)")
    parser.add_argument("--pin", action="append", default=[], metavar="NAME==VERSION",
                        help="override one pin for this venv (e.g. the next torch, to compare)")
    args = parser.parse_args(argv)
    # Relative to where the command was typed (scripts/setup changes to the project folder first).
    venv = Path(os.path.abspath(os.path.join(os.environ.get("LECTUREKIT_CWD") or os.getcwd(), args.venv)))
    try:
        if args.command == "install":
            install(venv, args.pin, say=lambda m: print(m, file=sys.stderr))
        else:
            problems = mismatches(_venv_python(venv), pins(overrides=args.pin))
            if problems:
                raise WrongEnvironment("; ".join(problems) + " (scripts/setup installs the pins)")
    except WrongEnvironment as err:
        print(f"setup: {err}", file=sys.stderr)
        return WRONG_ENVIRONMENT
    except subprocess.CalledProcessError as err:
        print(f"setup: {' '.join(map(str, err.cmd[:4]))} … failed (exit {err.returncode})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
