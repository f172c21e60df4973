"""`scripts/plan`: which lectures must execute, as JSON: those whose execution key has no entry in the
cache it is given.

  scripts/plan                          against this project's cache (_build/cache): what the next render executes
  scripts/plan --cache DIR              against a folder of cache entries (a restored CI cache, a products folder's)
  scripts/plan LECTURE ...              only these lectures

The key is the execution cache's own (`execute/cache.py`): the lecture's code and inline expressions,
every file under `code/`, the lecture folder's data files, the versions this interpreter would run
the kernel with (torch with its build variant), the CPU and the output-changing environment. A
lecture is cached when the folder holds a valid entry for that key, exactly as a render would load
it (a damaged entry is discarded with a warning, as a render discards it). Prose is not in the key: a
lecture whose sentences changed is not listed (its products are written again from the cache).

Printed on one line (a GitHub Actions output takes it as it is):

  {"execute": [{"name": "09-nn-module", "key": "<sha256>", "cache-key": "execution-09-nn-module-<sha256>"}],
   "lectures": [... every lecture: name, key, cache-key, "execute": true|false ...],
   "count": 1, "total": 2, "cache": "_build/cache", "versions": {...}, "machine": {...}}

`cache-key` names the lecture's entry in a CI cache (actions/cache). A lecture that cannot be read is
listed to execute with its error (its build then reports it at its file and line); a folder name
outside the lecture-name rule stops the plan (exit 1), as it would stop a render.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lecturekit import inputs
from lecturekit.errors import LectureError, run_command
from lecturekit.execute import cache
from lecturekit.project import Project, check_lecture_name
from lecturekit.read import qmd

USAGE = __doc__ or ""
CACHE_KEY_PREFIX = "execution"


def cache_key(name: str, key: str | None) -> str:
    """The lecture's entry in a CI cache: its name and execution key (or `unreadable`)."""
    return f"{CACHE_KEY_PREFIX}-{name}-{key or 'unreadable'}"


def plan_lectures(project: Project, lecture_dirs: Sequence[Path], cache_dir: Path) -> dict[str, Any]:
    """Each lecture keyed as a render keys it, and looked up in `cache_dir`; nothing executes."""
    versions = inputs.versions()
    store = cache.ExecutionCache(cache_dir)
    lectures: list[dict[str, Any]] = []
    for lecture_dir in lecture_dirs:
        check_lecture_name(lecture_dir)  # the name goes on into job names, cache keys and paths
        name = lecture_dir.name
        try:
            lecture = qmd.read_lecture(lecture_dir / "index.qmd", project.root)
        except LectureError as err:
            lectures.append({"name": name, "key": None, "cache-key": cache_key(name, None), "execute": True,
                             "error": str(err).split("\n")[0]})
            continue
        key = cache.execution_key(lecture, project.code_dir, versions)
        lectures.append({"name": name, "key": key, "cache-key": cache_key(name, key),
                         "execute": store.load(name, key) is None})
    execute = [{k: v for k, v in entry.items() if k != "execute"} for entry in lectures if entry["execute"]]
    return {"execute": execute, "lectures": lectures, "count": len(execute), "total": len(lectures),
            "cache": _shown(project, cache_dir), "versions": versions, "machine": inputs.machine()}


def _shown(project: Project, path: Path) -> str:
    """A path as the author gave it: inside the project, relative to it."""
    resolved = path.resolve()
    return resolved.relative_to(project.root.resolve()).as_posix() if resolved.is_relative_to(project.root.resolve()) \
        else str(resolved)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scripts/plan", description=USAGE.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(USAGE.split("\n")[2:]))
    parser.add_argument("lectures", nargs="*", help="lecture folder names (default: all)")
    parser.add_argument("--cache", metavar="DIR", default=None,
                        help="a folder of execution cache entries, laid out as _build/cache (default: this project's)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)

    def body() -> int:
        project = Project.find()
        # Relative to where the command was typed (scripts/plan changes to the project folder first).
        cache_dir = Path(os.path.join(os.environ.get("LECTUREKIT_CWD") or os.getcwd(), args.cache)) \
            if args.cache else project.build_dir / "cache"
        with inputs.read_once():
            found = plan_lectures(project, project.lectures(args.lectures), cache_dir)
        print(json.dumps(found, ensure_ascii=False, separators=(",", ":")))
        names = ", ".join(entry["name"] for entry in found["execute"])
        print(f"plan: {found['count']} of {found['total']} lecture(s) to execute"
              + (f": {names}" if names else "") + f" (no entry for their execution key in {found['cache']})",
              file=sys.stderr)
        for entry in found["execute"]:
            if entry.get("error"):
                print(f"plan: [{entry['name']}] cannot be read: {entry['error']}", file=sys.stderr)
        return 0
    return run_command(body) or 0


if __name__ == "__main__":
    sys.exit(main())
