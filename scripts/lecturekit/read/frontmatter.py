"""A lecture's front matter as the products and the course page see it: only `title` is required.

Every other key has a default, so `lectures/10-training/index.qmd` with nothing but a title renders:
the episode number comes from the folder's `NN-` prefix and the course name from the project. Keys
the author wrote always win; a key without a sensible default (`episodes`, `module`, `subtitle` …)
stays absent and the templates leave its part out.
"""
import re
from pathlib import Path

COURSE = "বাংলায় PyTorch"
EPISODE_PREFIX = re.compile(r"^(\d+)(?:[-_]|$)")


def episode_from_folder(folder: str | Path) -> int | None:
    """`10-training` -> 10; a folder without a number prefix has no episode number."""
    match = EPISODE_PREFIX.match(Path(folder).name)
    return int(match.group(1)) if match else None


def with_defaults(meta: dict, folder: str | Path) -> dict:
    """The front matter with `title`, `course` and `episode` filled in where the author left them out."""
    full = dict(meta or {})
    full.setdefault("title", Path(folder).name)
    full.setdefault("course", COURSE)
    episode = episode_from_folder(folder)
    if full.get("episode") is None and episode is not None:
        full["episode"] = episode
    return full
