"""Fonts, fills and the figures' words. The fonts are modtree's, so every figure of the course reads
alike; fills are told apart in greyscale by their lightness, and every mark also has a word or a
border, never colour alone."""
from modtree.style import TEXT_FONT

__all__ = ["KEY_FONT", "TEXT_FONT"]

# The monospace face Graphviz really finds here (fontconfig turns "Noto Sans Mono" into the
# proportional Noto Sans); the slides' SVG carries the glyphs as paths (figure.py), so the viewer's
# fonts never change a width.
KEY_FONT = "DejaVu Sans Mono"

TEXT_PT = 14       # drawn at 1.25 on the slides (23 px); at most ~720 pt wide, so ≥ 9.9 pt printed
SMALL_PT = 13
HEAD_FILL = "#eef2f7"    # header rows (luma 0.95)
USED_FILL = "#c3d8f5"    # a storage cell the view reads; a stretched size (luma 0.84)
CLASH_FILL = "#e8a29c"   # the column that does not match, also drawn with a thick border (luma 0.69)
BORDER = "#475569"
QUIET = "#475569"
INK = "#0f172a"

BN_DIGITS = str.maketrans("0123456789-", "০১২৩৪৫৬৭৮৯−")


def bn(n) -> str:
    return str(n).translate(BN_DIGITS)


WORDS = {
    "cell": "storage-এর ঘর",
    "value": "মান",
    "looks": "যেমন দেখায়",
    "contiguous_yes": "contiguous: হ্যাঁ",
    "contiguous_no": "contiguous: না",
    "storage": "({cells}টি ঘর, {dtype}, {nbytes} byte)",
    # One line each under the figure.
    "memory_legend": ("ছায়া দেওয়া (নীল) ঘর: সেই সারির tensor storage-এর যে ঘর পড়ে, ফাঁকা ঘর: যা পড়ে না",
                      "বাংলা সংখ্যা: tensor-টি সারি ধরে পড়লে ঘরটি কত নম্বরে আসে"),
    "dim": "মাত্রা",
    "missing": "নেই",
    "result": "ফল",
    "after": "টানার পরে (expand-এর মতো)",
    "fresh": "নতুন memory",
    "same": "সমান",
    "stretch": "টানা",
    "clash": "মেলে না",
    "clash_line": "মেলে না: মাত্রা {dim}-এ {sizes}",
    "result_line": "ফলের আকার {shape}",
    "broadcast_legend": ("ডান দিক থেকে মেলানো; ছায়া দেওয়া (নীল) ঘর: ১ বা না-থাকা মাত্রা টেনে বড় করা",),
}
