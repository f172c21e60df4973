"""The course's plot style lives in course.mplstyle; this applies it."""
from __future__ import annotations

from pathlib import Path

STYLE_FILE = Path(__file__).with_name("course.mplstyle")


def use_style() -> None:
    """Apply the course style to matplotlib's current settings."""
    import matplotlib.style

    matplotlib.style.use(str(STYLE_FILE))
