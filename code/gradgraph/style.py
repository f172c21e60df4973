"""Colours, fonts and the words of the autograd-graph figure, in Bengali and English.

The fonts, sizes and arrow colour are the module tree's (`modtree.style`), so the two figures of a
lecture look like one family. Every kind of node differs by shape or line as well as by colour, so
a greyscale copy reads the same:

- the tensor the walk starts from (loss): white, rounded, drawn with a double-width border;
- a backward function: light blue, rounded, a thin border;
- a leaf's AccumulateGrad: amber, square corners, and the leaf's name in red monospace;
- an input that gets no gradient: "∅" at the end of a dashed arrow with a bar for a head;
- a stretch of a long chain drawn as one box: grey, rounded and dashed;
- a saved tensor row: ruled with dots; a saved tensor that backward cannot use: a row beginning ✗.
"""
from modtree.style import ARROW, KEY_FONT, KEY_RED, QUIET, TEXT_FONT  # noqa: F401  (one family)

# Fills a greyscale copy still tells apart (luma in brackets): output white (1.00), a folded
# stretch near white (0.98), a function light blue (0.84), a leaf amber (0.75).
OUTPUT = ("#ffffff", "#1f2937")  # (fill, border)
FUNCTION = ("#c3d8f5", "#1d4ed8")
LEAF = ("#eebd48", "#b45309")
FOLD = ("#f8fafc", "#64748b")
PROBLEM = "#b91c1c"  # the ✗ row: a saved tensor backward cannot use
OUTPUT_BORDER = 2  # border widths (pt) in the HTML-like labels
BORDER = 1

TEXT_PT = 12
QUIET_PT = 12
CAPTION_PT = 14

WORDS = {
    "bn": {
        "output": "মোটা রেখা: backward-এর শুরু",
        "function": "নীল, গোল: backward function",
        "leaf": "হলুদ, চৌকো: leaf (.grad-এ জমে)",
        "none": "এদিকে gradient যায় না",
        "fold": "ড্যাশ বাক্স: শিকলের মাঝখান",
        "saved": "বিন্দুর নিচে: রাখা tensor",
        "problem": "রাখা tensor অচল",
        "arrows": "তীর: gradient-এর পথ, output থেকে leaf-এ",
        "unnamed": "নাম নেই",
        "fold_title": "⋯ আরও {count}টি function",
        "cut_title": "⋯ আঁকা হয়নি: আরও {functions}টি function, {leaves}টি leaf",
        "grad_to": "→ {name}.grad",
        "retains": "retain_grad()",
        "hook": "hook",
        "saved_more": "… আরও {count}টি",
        "inplace": "✗ রাখা {what} পরে in-place বদলেছে",
        "versions": "version এখন {now}, backward চায় {wanted}",
        "output_of": "{op}-এর output",
        "a_tensor": "tensor",
        "freed": "✗ saved tensor মুক্ত:\nbackward আগেই হয়ে গেছে",
        "unusable": "✗ saved tensor পড়া যায় না",
        # Alt text for screen readers.
        "alt_title": "{root}-এর autograd graph: {functions}টি backward function, {leaves}টি leaf; "
                     "তীর gradient-এর পথে।",
        "alt_none": "∅ (gradient নেই)",
        "alt_leaf": "leaf {name} {shape}, gradient জমে {name}.grad-এ",
        "alt_unnamed_leaf": "নামহীন leaf {shape}",
        "alt_again": "আগে বর্ণিত",
        "alt_saved": "রাখা tensor",
        "alt_fold": "আরও {count}টি function ({types})",
        "alt_cut": "আঁকা হয়নি: আরও {functions}টি function, {leaves}টি leaf",
    },
    "en": {
        "output": "thick border: where backward starts",
        "function": "blue, rounded: a backward function",
        "leaf": "amber, square: a leaf (into .grad)",
        "none": "no gradient this way",
        "fold": "dashed box: the middle of a chain",
        "saved": "below the dots: saved tensors",
        "problem": "a saved tensor is unusable",
        "arrows": "arrows: the gradient's way, output to leaves",
        "unnamed": "unnamed",
        "fold_title": "⋯ {count} more functions",
        "cut_title": "⋯ not drawn: {functions} more functions, {leaves} leaves",
        "grad_to": "→ {name}.grad",
        "retains": "retain_grad()",
        "hook": "hook",
        "saved_more": "… {count} more",
        "inplace": "✗ saved {what} changed in place since",
        "versions": "version {now} now, backward needs {wanted}",
        "output_of": "output of {op}",
        "a_tensor": "tensor",
        "freed": "✗ saved tensors freed:\nbackward already ran",
        "unusable": "✗ saved tensor cannot be read",
        "alt_title": "Autograd graph of {root}: {functions} backward functions, {leaves} leaves; "
                     "arrows follow the gradient.",
        "alt_none": "∅ (no gradient)",
        "alt_leaf": "leaf {name} {shape}, its gradient collects in {name}.grad",
        "alt_unnamed_leaf": "unnamed leaf {shape}",
        "alt_again": "described above",
        "alt_saved": "saved",
        "alt_fold": "{count} more functions ({types})",
        "alt_cut": "not drawn: {functions} more functions, {leaves} leaves",
    },
}


def words(lang: str) -> dict[str, str]:
    if lang not in WORDS:
        raise ValueError(f"lang must be one of {sorted(WORDS)}, not {lang!r}")
    return WORDS[lang]
