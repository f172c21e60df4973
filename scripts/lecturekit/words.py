"""The Bengali words the products show (not the lectures' prose), read from one file.

`_extensions/lecture/words.json` is read by the kit here and by the Lua filters (common.lua): one
spelling of "ছবি", the month names and the digits for both renderers. The course page's sentences
are in its template (course/site/templates/course.html.j2).
"""
import datetime
import json
from pathlib import Path
from typing import Any

WORDS_FILE = Path(__file__).resolve().parents[2] / "_extensions" / "lecture" / "words.json"
_ALL: dict[str, Any] = json.loads(WORDS_FILE.read_text(encoding="utf-8"))

BENGALI_DIGITS: str = _ALL["digits"]
TO_BENGALI_DIGITS = str.maketrans("0123456789", BENGALI_DIGITS)
FROM_BENGALI_DIGITS = str.maketrans(BENGALI_DIGITS, "0123456789")

MONTHS: tuple[str, ...] = tuple(_ALL["months"])

# Names of things, as the products label them ("figure", "slides", "code-zip" …).
WORDS: dict[str, str] = {key: value for key, value in _ALL.items() if isinstance(value, str)}

# What the lecture pages and the course page say around the lectures (skip link, search …).
PAGE_WORDS: dict[str, str] = dict(_ALL["page_words"])

# Phrases with a number in them: str.format with Bengali digits already in place.
EPISODES_MADE: str = _ALL["episodes_made"]
OF_TOTAL: str = _ALL["of_total"]


def bn_digits(value: object) -> str:
    """Western digits -> Bengali digits (everything else as it is)."""
    return str(value).translate(TO_BENGALI_DIGITS)


def bengali_date(timestamp: float) -> str:
    """`12 মার্চ 2026` in Bengali digits, the day in UTC (the same date on every machine)."""
    day = datetime.datetime.fromtimestamp(timestamp, datetime.timezone.utc)
    return bn_digits(f"{day.day} {MONTHS[day.month - 1]} {day.year}")
