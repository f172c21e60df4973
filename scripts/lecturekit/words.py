"""The Bengali words the kit itself writes (not the lectures' prose), in one place.

The Lua filters keep theirs in one table too, `words` in _extensions/lecture/filters/common.lua;
tests/test_stages.py holds the two to the same spelling where both name a thing. The course page's
sentences are in its template (course/templates/course.html.j2).
"""
import datetime

BENGALI_DIGITS = "০১২৩৪৫৬৭৮৯"
TO_BENGALI_DIGITS = str.maketrans("0123456789", BENGALI_DIGITS)
FROM_BENGALI_DIGITS = str.maketrans(BENGALI_DIGITS, "0123456789")

MONTHS = ("জানুয়ারি", "ফেব্রুয়ারি", "মার্চ", "এপ্রিল", "মে", "জুন", "জুলাই", "আগস্ট", "সেপ্টেম্বর",
          "অক্টোবর", "নভেম্বর", "ডিসেম্বর")

# Names of things, as the products label them.
WORDS = {
    "figure": "ছবি",
    "table": "সারণি",
    "answers": "উত্তরমালা",
    "episode": "পর্ব",
    "module": "মডিউল",
    "other-episodes": "অন্যান্য পর্ব",
    "slides": "স্লাইড",
    "handout": "হ্যান্ডআউট (PDF)",
    "code-zip": "কোড (zip)",
}

# Phrases with a number in them: str.format with Bengali digits already in place.
EPISODES_MADE = "{made}টি পর্ব তৈরি"
OF_TOTAL = ", মোট {total}টির মধ্যে"


def bn_digits(value: object) -> str:
    """Western digits -> Bengali digits (everything else as it is)."""
    return str(value).translate(TO_BENGALI_DIGITS)


def bengali_date(timestamp: float) -> str:
    """`12 মার্চ 2026` in Bengali digits, the day in UTC (the same date on every machine)."""
    day = datetime.datetime.fromtimestamp(timestamp, datetime.timezone.utc)
    return bn_digits(f"{day.day} {MONTHS[day.month - 1]} {day.year}")
