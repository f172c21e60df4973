"""The Python environment, exactly as pyproject.toml pins it; torch the CPU build unless asked.

    python3 -m lecturekit.cli.pins install [--venv DIR] [--pin NAME==VERSION ...] [--allow-cuda]
    python3 -m lecturekit.cli.pins verify  [--venv DIR]
    python3 -m lecturekit.cli.pins lock    [--venv DIR]

`install` makes (or updates) the venv: it first asks pip which torch it would pick (a dry run that
reads metadata only) and stops, before anything is downloaded, when that is not a CPU build: on
PyPI a plain `torch` for Linux is the CUDA build and pulls several GB of nvidia-* packages. With
`--allow-cuda` it installs that build anyway (it runs on the CPU too; PyPI's newest torch may exist
only as that build) after saying how much it downloads. Then it installs the pins and verifies them.
`--pin` overrides a pin for this venv only: the next version's environment for
`scripts/check --compare-python` (`--venv ../venv-next --pin torch==2.15.0 --allow-cuda`).

The install is exact: a package that neither a pin nor a pin's requirements (followed through) name
is removed afterwards, and the removal is said (the nvidia-* packages and triton a CUDA torch left
behind, when the venv goes back to the CPU build). pip, setuptools, wheel, uv and the project itself stay.

The packages go in with uv when pyproject.toml pins it (pip installs that one pin first): a fresh
venv in about 10 s instead of pip's 1.5 min, the same versions (verified after every install). uv
does not read pip's configuration, so pip's own (`pip config list`: find-links, extra indexes,
constraints) is passed to it.

pyproject.toml pins what the project asks for; `requirements.lock` holds every other distribution
of the venv at its exact version (what the pins require, followed through), so a venv made on
another day is the same venv: an unpinned fontTools, say, subsets the figures' fonts into other
bytes. `lock` writes it from a venv that works, with the digest of the pins it was written for;
after a pin changes, the lock no longer applies: setup installs the pins alone and locks anew. An
upgrade venv (`--pin`) takes the pins alone too: its new torch may need other versions.

`verify` reads the installed versions (importlib.metadata; no torch import) and names every package
whose version differs from its pin, and a torch that is not a CPU build. Stdlib only: it runs
before the venv exists.
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
LOCK = ROOT / "requirements.lock"
PIN = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*==\s*([^\s;]+)\s*$")
# Status when the environment cannot be made or is not what the pins say (not 1: a failed command).
WRONG_ENVIRONMENT = 3


# {canonical name: (name as written, version)}
Pins = dict[str, tuple[str, str]]
Say = Callable[[str], None]


class WrongEnvironment(Exception):
    """What is wrong, in words an author can act on."""


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(pyproject: Path = ROOT / "pyproject.toml", overrides: Sequence[str] = ()) -> Pins:
    """{canonical name: (name as written, version)} from [project] dependencies, then the overrides."""
    found: Pins = {}
    for line in list(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]) + list(overrides):
        match = PIN.match(line)
        if not match:
            raise WrongEnvironment(f"{line!r}: every dependency must be pinned exactly (name==version)")
        found[canonical(match.group(1))] = (match.group(1), match.group(2))
    return found


def build_variant(version: str, requires: Sequence[str] = (), cuda: str | None = None) -> str:
    """The version with its build variant: `2.13.0+cpu` as it is; PyPI's CUDA wheel, which carries
    no label, as `2.15.0+cu132` (from torch/version.py's `cuda`, or its nvidia-*-cuNN requirements)."""
    if "+" in version:
        return version
    if cuda:
        return f"{version}+cu{cuda.replace('.', '')}"
    tags = sorted({m.group(1) for r in requires for m in [re.search(r"nvidia-[a-z-]*?-(cu\d+)", canonical(r))] if m})
    return f"{version}+{tags[0]}" if tags else version


def is_cpu_build(version: str, requires: Sequence[str] = ()) -> bool:
    """A torch wheel built without CUDA/ROCm: the +cpu label, and no nvidia-* requirements."""
    label = version.partition("+")[2]
    return label == "cpu" and not any(canonical(r).startswith("nvidia-") for r in requires)


def pins_digest() -> str:
    """What the lock was written for: the pins, as pyproject.toml has them."""
    return hashlib.sha256(json.dumps(sorted(pins().values())).encode()).hexdigest()[:16]


def locked(lock: Path = LOCK) -> Pins:
    """{canonical name: (name, version)} from requirements.lock; none when it is absent or was
    written for other pins (a pin changed: its new version may need other versions)."""
    found: Pins = {}
    if not lock.exists():
        return found
    text = lock.read_text(encoding="utf-8")
    if f"# pins: {pins_digest()}" not in text.splitlines():
        return found
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = PIN.match(line)
        if not match:
            raise WrongEnvironment(f"{lock.name}:{number}: {line!r} is not name==version")
        found[canonical(match.group(1))] = (match.group(1), match.group(2))
    return found


def environment(overrides: Sequence[str] = ()) -> Pins:
    """What the venv must hold: the pins, and without overrides every locked distribution too."""
    wanted = pins(overrides=overrides)
    if not overrides:
        wanted = {**locked(), **wanted}
    return wanted


def write_lock(venv: Path, lock: Path = LOCK) -> int:
    """requirements.lock from the venv's distributions (the project, pip and the tools a venv
    brings aside); the number of distributions written."""
    skip = {canonical(n) for n in (*ALWAYS_KEPT, project_name())} - {"uv"}
    asked = pins()
    have = {k: v for k, v in installed(_venv_python(venv)).items() if k not in skip and k not in asked}
    lines = [f"{name}=={version}" for name, version in sorted(have.items())]
    lock.write_text("# Every distribution of the venv that pyproject.toml does not pin, at its exact version.\n"
                    "# Written by `python3 -m lecturekit.cli.pins lock` (scripts/lecturekit/cli/pins.py),\n"
                    "# and by scripts/setup after a pin changed; commit it with the pin.\n"
                    f"# pins: {pins_digest()}\n"
                    + "\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def _venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def installed(python: Path) -> dict[str, str]:
    """{canonical name: version} of the distributions the interpreter sees."""
    probe = ("import importlib.metadata as m, json\n"
             "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions() if d.metadata['Name']}))")
    out = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True).stdout
    return {canonical(k): v for k, v in json.loads(out).items()}


def mismatches(python: Path, wanted: Pins, allow_cuda: bool = False) -> list[str]:
    """One line per pinned package whose installed version differs, or torch not built for the CPU
    (unless a CUDA build was asked for)."""
    have = installed(python)
    problems = []
    for key, (name, version) in wanted.items():
        got = have.get(key)
        if got is None:
            problems.append(f"{name} {version} is pinned but not installed")
        elif got != version:
            problems.append(f"{name} {got} is installed, {'requirements.lock' if key in locked() and key not in pins() else 'pyproject.toml'} pins {version}")
    torch = have.get("torch")
    if torch and not is_cpu_build(torch) and not allow_cuda:
        problems.append(f"torch {torch} is not the CPU build (+cpu): its outputs are not the ones the "
                        "lectures record, and it carries several GB of CUDA libraries")
    return problems


def planned_torch(python: Path, requirement: str) -> dict[str, Any]:
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


def download_size(urls: Iterable[str]) -> int | None:
    """Bytes to download for these files (a local file's size, a remote one's Content-Length from a
    HEAD request); None when one of them cannot be asked."""
    import urllib.parse
    import urllib.request
    total = 0
    for url in urls:
        parsed = urllib.parse.urlparse(url)
        try:
            if parsed.scheme == "file":
                total += os.path.getsize(urllib.request.url2pathname(parsed.path))
            else:
                with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=20) as answer:
                    total += int(answer.headers["Content-Length"])
        except (OSError, TypeError, ValueError):
            return None
    return total


def planned_downloads(python: Path, requirements: list[str]) -> list[tuple[str, str, str]]:
    """(name, version, url) of every file pip would download for these requirements (dry run)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        run = subprocess.run([str(python), "-m", "pip", "install", "--dry-run", "--quiet", "--ignore-installed",
                              "--report", str(report), *requirements], capture_output=True, text=True)
        if run.returncode != 0 or not report.exists():
            return []
        return [(i["metadata"]["name"], i["metadata"]["version"], i["download_info"]["url"])
                for i in json.loads(report.read_text())["install"]]


def gigabytes(size: int | None) -> str:
    return "an unknown size" if size is None else f"{size / 1e9:.1f} GB"


def check_torch_plan(python: Path, wanted: Pins, allow_cuda: bool = False, say: Say = print) -> None:
    if "torch" not in wanted:
        return
    name, version = wanted["torch"]
    plan = planned_torch(python, f"{name}=={version}")
    if is_cpu_build(plan["version"], plan["nvidia"]):
        return
    label = build_variant(plan["version"], plan["nvidia"])
    if allow_cuda:
        files = [f for f in planned_downloads(python, [f"{name}=={version}"])
                 if canonical(f[0]) == "torch" or canonical(f[0]).startswith(("nvidia-", "triton"))]
        size = download_size([url for _, _, url in files]) if files else None
        say(f"setup: torch {label} is the CUDA build (it runs on the CPU too); with "
            f"{len(files) - 1 if files else len(plan['nvidia'])} nvidia-*/triton packages it downloads "
            f"{gigabytes(size)}. Installing it because --allow-cuda was given.")
        return
    needs = f", which needs {', '.join(plan['nvidia'][:3])} …" if plan["nvidia"] else ""
    raise WrongEnvironment(
        f"pip would install torch {label} from {plan['url']}: a CUDA build{needs} (several GB). "
        f"Pin the CPU build in pyproject.toml (torch=={plan['version'].partition('+')[0]}+cpu) and make its "
        "wheel reachable (PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu or a local wheel in "
        "pip's find-links), or, to compare against this build, add --allow-cuda. Nothing was installed.")


# Run by the venv's interpreter: which installed distributions no pin needs (requirements followed
# through, markers evaluated, extras included). pip vendors `packaging`, so it works in any venv.
_EXTRANEOUS_PROBE = r"""
import importlib.metadata as m, json, re, sys
try:
    from packaging.requirements import Requirement
except ImportError:
    from pip._vendor.packaging.requirements import Requirement
canon = lambda n: re.sub(r"[-_.]+", "-", n).lower()
dists = {canon(d.metadata["Name"]): d for d in m.distributions() if d.metadata["Name"]}
todo, seen = [(canon(n), frozenset()) for n in json.loads(sys.argv[1])], set()
while todo:
    name, extras = todo.pop()
    if (name, extras) in seen or name not in dists:
        continue
    seen.add((name, extras))
    for line in dists[name].requires or []:
        req = Requirement(line)
        if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in ("", *extras)):
            todo.append((canon(req.name), frozenset(req.extras)))
needed = {n for n, _ in seen}
print(json.dumps(sorted((dists[n].metadata["Name"], dists[n].version) for n in dists if n not in needed)))
"""
ALWAYS_KEPT = ("pip", "setuptools", "wheel", "uv")


def extraneous(python: Path, wanted: Pins) -> list[tuple[str, str]]:
    """(name, version) of installed packages that no pin needs."""
    keep = [name for name, _ in wanted.values()] + list(ALWAYS_KEPT) + [project_name()]
    out = subprocess.run([str(python), "-c", _EXTRANEOUS_PROBE, json.dumps(keep)], capture_output=True,
                         text=True, check=True).stdout
    return [(name, version) for name, version in json.loads(out)]


def project_name() -> str:
    name: str = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
    return name


def remove_extraneous(venv: Path, wanted: Pins, say: Say = print) -> list[tuple[str, str]]:
    """Uninstall what no pin needs, and say so (a CUDA torch's nvidia-* packages, hand installs)."""
    python = _venv_python(venv)
    extra = extraneous(python, wanted)
    if not extra:
        return []
    names = [name for name, _ in extra]
    say(f"setup: removing {len(extra)} package(s) no pin needs: " + ", ".join(f"{n} {v}" for n, v in extra))
    uv = venv / "bin" / "uv"
    if uv.exists():
        subprocess.run([str(uv), "pip", "uninstall", "-q", "--python", str(python), *names], check=True)
    else:
        subprocess.run([str(python), "-m", "pip", "uninstall", "-q", "-y", *names], check=True)
    return extra


def pip_settings(python: Path) -> dict[str, list[str]]:
    """pip's configuration as `pip config list` shows it (files and PIP_* variables): key -> values."""
    out = subprocess.run([str(python), "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    found: dict[str, list[str]] = {}
    for line in out.splitlines():  # listed in pip's loading order: a later source overrides
        key, _, value = line.partition("=")
        found[key.rpartition(".")[2]] = value.strip().strip("'\"").split()
    return found


def uv_arguments(settings: dict[str, list[str]]) -> list[str]:
    """pip's index settings as uv options; pip takes the best version over all indexes, so uv must too."""
    args = ["--index-strategy", "unsafe-best-match"]
    for url in settings.get("index-url", [])[:1]:
        args += ["--index-url", url]
    for option in ("extra-index-url", "find-links", "constraint"):
        for value in settings.get(option, []):
            args += [f"--{option}", value]
    return args


def install(venv: Path, overrides: Sequence[str] = (), say: Say = print, allow_cuda: bool = False) -> None:
    wanted = environment(overrides)
    python = _venv_python(venv)
    if not python.exists():
        say(f"setup: creating {venv}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    problems = mismatches(python, wanted, allow_cuda)
    if not problems:
        remove_extraneous(venv, wanted, say)
        return
    for problem in problems:
        if not problem.endswith("not installed"):  # a fresh venv lacks everything: nothing to report
            say(f"setup: {problem}")
    check_torch_plan(python, wanted, allow_cuda, say)
    requirements = venv / "requirements.txt"
    requirements.write_text("\n".join(f"{name}=={version}" for name, version in wanted.values()) + "\n")
    uv = wanted.get("uv")
    tool = "uv" if uv else "pip"
    say(f"setup: {tool} install into {venv} (pinned in pyproject.toml{'' if overrides else ' and requirements.lock'}"
        + (f", with {' '.join(overrides)}" if overrides else "") + ")")
    if uv:
        subprocess.run([str(python), "-m", "pip", "install", "-qq", f"{uv[0]}=={uv[1]}"], check=True)
        # --compile-bytecode: as pip does, so that no command compiles the libraries it imports
        # (where PYTHONDONTWRITEBYTECODE is set, every start would, half a second and more).
        subprocess.run([str(venv / "bin" / "uv"), "pip", "install", "-q", "--compile-bytecode", "--python", str(python),
                        *uv_arguments(pip_settings(python)), "-r", str(requirements)], check=True)
    else:
        subprocess.run([str(python), "-m", "pip", "install", "-q", "-r", str(requirements)], check=True)
    problems = mismatches(python, wanted, allow_cuda)
    if problems:
        raise WrongEnvironment(f"after {tool} install: " + "; ".join(problems))
    remove_extraneous(venv, wanted, say)
    if not overrides and venv == ROOT / ".venv" and not locked():
        say(f"setup: a pin changed: {write_lock(venv)} distributions locked anew in {LOCK.name} (commit it with the pin)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lecturekit.cli.pins", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("install", "verify", "lock"))
    parser.add_argument("--venv", default=str(ROOT / ".venv"), help="the venv (default: the project's .venv)")
    parser.add_argument("--pin", action="append", default=[], metavar="NAME==VERSION",
                        help="override one pin for this venv (e.g. the next torch, to compare)")
    parser.add_argument("--allow-cuda", action="store_true",
                        help="accept a CUDA build of torch (several GB; the size is said before it downloads)")
    args = parser.parse_args(argv)
    # Relative to where the command was typed (scripts/setup changes to the project folder first).
    venv = Path(os.path.abspath(os.path.join(os.environ.get("LECTUREKIT_CWD") or os.getcwd(), args.venv)))
    try:
        if args.command == "install":
            install(venv, args.pin, say=lambda m: print(m, file=sys.stderr), allow_cuda=args.allow_cuda)
        elif args.command == "lock":
            print(f"setup: {write_lock(venv)} distributions locked in {LOCK.name}", file=sys.stderr)
        else:
            problems = mismatches(_venv_python(venv), environment(args.pin), args.allow_cuda)
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
