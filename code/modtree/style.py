"""Colours, fonts and the words of the figure, in Bengali and English."""

# Bengali first; Latin falls back to Noto Sans, which the slides' web font
# (family "Noto Sans Bengali Variable") also carries.
TEXT_FONT = "Noto Sans Bengali, Noto Sans Bengali Variable, Noto Sans, sans-serif"
# Noto Sans Mono is what the slides load; DejaVu Sans Mono is what dot finds on the build machine.
KEY_FONT = "Noto Sans Mono, DejaVu Sans Mono, monospace"

# Fills a greyscale copy still tells apart (luma in brackets): parameter rows white (1.00), a
# module without parameters near white (0.98) and without rows, a submodule's box light blue
# (0.84), buffer rows amber (0.75); the keys a dark red that keeps 6:1 on the amber.
# tests/test_modtree.py and the lectures name the colours.
BLUE = ("#c3d8f5", "#1d4ed8")  # (fill, border): a submodule
AMBER = ("#eebd48", "#b45309")  # a buffer
GREY = ("#f8fafc", "#94a3b8")  # a module with no parameter anywhere inside
PARAMETER_FILL = "#ffffff"
KEY_RED = "#8b1a1a"
QUIET = "#475569"  # types, counts, notes
ARROW = "#64748b"

# Type sizes (pt at the figure's own size). The handout sets a tree 510 pt wide (A4's text width)
# and a tree's PDF is up to about 710 pt wide, so 12 pt prints at 8.6 pt or more.
TEXT_PT = 12
QUIET_PT = 12  # types in brackets, counts, notes, arrow names (colour, not size, makes them quiet)
CAPTION_PT = 14

WORDS = {
    "bn": {
        "submodule": "নীল: submodule",
        "parameter": "সাদা: parameter",
        "buffer": "হলুদ: buffer",
        "empty": "ধূসর: parameter নেই",
        "key": "লাল: state_dict-এর key আর আকার",
        "not_saved": "persistent=False: state_dict-এ নেই",
        "run": "×n: একই গড়নের n-টি পাশাপাশি module, একবার আঁকা",
        "shared": "একাধিক তীর: একই submodule, একাধিক নামে",
        "folded": "…: আরও গভীরে আছে, আঁকা হয়নি",
        "params": "parameter: {total}",
        "params_run": "parameter: প্রতিটি {each}, মোট {total}",
        "folded_row": "… ভেতরে আরও {modules}টি submodule, {keys}টি key",
        "extra_state": "(extra state)",
        "absent": "state_dict-এ নেই",
        # Alt text for screen readers.
        "alt_title": "{name}-এর module গাছ; state_dict-এ {keys}টি key।",
        "alt_run": "একই গড়নের {count}টি",
        "alt_parameter": "parameter",
        "alt_buffer": "buffer",
        "alt_key": "key",
        "alt_not_saved": "persistent=False, state_dict-এ নেই",
        "alt_empty": "parameter নেই",
        "alt_again": "একই submodule, আগে বর্ণিত",
        "alt_folded": "ভেতরে আরও {modules}টি submodule, {keys}টি key, আঁকা হয়নি",
    },
    "en": {
        "submodule": "blue: submodule",
        "parameter": "white: parameter",
        "buffer": "amber: buffer",
        "empty": "grey: no parameters",
        "key": "red: state_dict key and shape",
        "not_saved": "persistent=False: not in state_dict",
        "run": "×n: n identical siblings, drawn once",
        "shared": "several arrows: one submodule, several names",
        "folded": "…: more inside, not drawn",
        "params": "parameters: {total}",
        "params_run": "parameters: {each} each, {total} in all",
        "folded_row": "… {modules} more submodules, {keys} keys inside",
        "extra_state": "(extra state)",
        "absent": "not in state_dict",
        "alt_title": "Module tree of {name}; {keys} keys in its state_dict.",
        "alt_run": "{count} identical",
        "alt_parameter": "parameter",
        "alt_buffer": "buffer",
        "alt_key": "key",
        "alt_not_saved": "persistent=False, not in state_dict",
        "alt_empty": "no parameters",
        "alt_again": "the same submodule, described above",
        "alt_folded": "{modules} more submodules and {keys} keys inside, not drawn",
    },
}


def words(lang: str) -> dict[str, str]:
    if lang not in WORDS:
        raise ValueError(f"lang must be one of {sorted(WORDS)}, not {lang!r}")
    return WORDS[lang]
