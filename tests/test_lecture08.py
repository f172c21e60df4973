"""Lecture 08's own facts, on top of the tests every lecture gets (test_lectures.py, test_slides.py,
test_handout.py …): its twelve sections and handout-only pages, its cover, the autograd-graph figures
drawn by gradgraph in both products (labels at 18 px or more on the slides), each trap the lecture
promises coming out of a real run as its real error or its real wrong number, no number typed by hand
in its prose, and the student scripts printing what the handout shows."""
import re
import runpy
import sys

import nbformat
import pytest

import test_handout as handout_policy
from helpers import ROOT, Lecture, pdf_text
from test_deck_audit import TREE_LABELS
from test_lectures import handout_only_pages
from test_scripts import numbers, same_quantity, skeleton
from test_slides import open_deck

LECTURE = Lecture("08-autograd")
NAME = LECTURE.name
SCRIPTS = ROOT / "code" / "scripts" / NAME
SECTIONS = LECTURE.sources


@pytest.fixture(scope="module")
def handout_pdf(rendered):
    return LECTURE.product(rendered, "handout.pdf")


@pytest.fixture(scope="module")
def handout_text(handout_pdf):
    return pdf_text(handout_pdf)


@pytest.fixture(scope="module")
def notebook(rendered):
    return nbformat.read(str(LECTURE.notebook), as_version=4)


def outputs(notebook):
    """Each labelled cell's printed text and error line, as the reader sees them."""
    out = {}
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        text = ""
        for o in cell.outputs:
            if o.get("output_type") == "stream" and o.get("name") == "stdout":
                text += o["text"]
            elif o.get("output_type") == "error":
                text += f"{o['ename']}: {o['evalue']}\n"
        out[cell.metadata["lecture"]["label"]] = text
    return out


def test_twelve_sections_and_handout_only_pages(rendered):
    assert len(SECTIONS) == 12
    assert len(handout_only_pages(rendered, LECTURE)) >= 5


def test_title_slide_and_cover(rendered, handout_pdf):
    html = " ".join(LECTURE.product(rendered, "slides.html").read_text(encoding="utf-8").split())
    for text in ("বাংলায় PyTorch", "পর্ব ০৮ · ৯১-এর মধ্যে · মডিউল ২", "PyTorch autograd",
                 "requires_grad, backward আর gradient-এর ফাঁদ", "PyTorch Autograd — Leaves and grad_fn"):
        assert text in html, text
    cover = handout_policy.pdf_text_page(handout_pdf, 1)
    for part in ("বাংলায় PyTorch", "পর্ব ০৮", "৯১-এর মধ্যে", "মডিউল ২", "PyTorch autograd"):
        assert part in cover, part


def test_numbered_figures_tables_and_boxes(handout_text):
    for box in ("ছবি ৮.১", "ছবি ৮.৬", "সারণি ৮.১", "মনে রাখুন", "শব্দকোষ", "অনুশীলনী ১", "প্রশ্ন ১"):
        assert box in handout_text, box


# --- the autograd-graph figures -----------------------------------------------------------------

def gradgraph_figures(notebook):
    return [cell.metadata["lecture"]["label"] for cell in notebook.cells if cell.cell_type == "code"
            for o in cell.outputs if "digraph gradgraph" in o.get("data", {}).get("text/vnd.graphviz", "")]


def test_graph_figures_are_drawn_from_grad_fn_in_both_products(notebook, rendered):
    drawn = gradgraph_figures(notebook)
    assert len(drawn) >= 2, drawn
    figures = ROOT / "figures" / NAME
    for label in drawn:
        svg = (figures / f"{label}.svg").read_text(encoding="utf-8")
        assert "<title>gradgraph</title>" in svg and (figures / f"{label}.pdf").read_bytes().startswith(b"%PDF")
    typ = (ROOT / "_build" / NAME / f"{NAME}.typ").read_text(encoding="utf-8")
    assert sum(f"{label}.pdf" in typ for label in drawn) == len(drawn)  # the handout prints the PDFs
    html = LECTURE.product(rendered, "slides.html").read_text(encoding="utf-8")
    assert html.count('data-cell-label="fig-s0') >= len(drawn) - 1  # and the deck shows each one


def test_graph_labels_at_18px_or_more_on_the_slides(browser, rendered):
    """The module-tree rule (test_deck_audit), applied to the autograd graphs."""
    context, page = open_deck(browser, rendered, LECTURE)
    try:
        found = page.evaluate(TREE_LABELS.replace("<title>modtree</title>", "<title>gradgraph</title>"))
    finally:
        context.close()
    assert len(found) >= 2, found
    small = {f["id"]: round(f["px"], 1) for f in found if f["px"] < 18.0 - 0.05}
    assert not small, f"graph labels under 18 px on the slide: {small}"


def test_the_delivery_graph_names_every_parameter(notebook):
    dot = next(o["data"]["text/vnd.graphviz"] for cell in notebook.cells if cell.cell_type == "code"
               and cell.metadata["lecture"]["label"] == "fig-s01-delivery" for o in cell.outputs if "data" in o)
    for name in ("hidden.0.weight", "hidden.0.bias", "hidden.3.weight", "hidden.3.bias", "head.weight", "head.bias"):
        assert f">{name}</FONT>" in dot, name
    assert "x_mean" not in dot and dot.count("AddmmBackward0") == 3


# --- every promise of the lecture, from a real run ------------------------------------------------

REAL = {
    "s02-vector": ["RuntimeError: grad can be implicitly created only for scalar outputs"],
    "s03-twice": ["RuntimeError: Trying to backward through the graph a second time"],
    "s03-retain-grad": ["pred.grad: None", "UserWarning The .grad attribute of a Tensor that is not a leaf Tensor",
                        "retain_grad()-এর পরে pred.grad: tensor(-14.)"],
    "s04-inference": ["RuntimeError: Inference tensors cannot be saved for backward"],
    "s05-leaf": ["RuntimeError: a leaf Variable that requires grad is being used in an in-place operation."],
    "s05-saved-error": ["which is output 0 of Exp, is at version 1; expected version 0 instead"],
    "s05-data": ["x.grad: tensor([3., 3.]) | ঠিক উত্তর: tensor([1., 1.])"],
    "s05-sqrt": ["√(dx² + dy²): tensor([nan, nan])", "sqrt(0): inf | abs(0): 0.0"],
    "s05-int": ["RuntimeError: only Tensors of floating point dtype can require gradients"],
    "s05-item-errors": ["value.backward(): 'float' object has no attribute 'backward'",
                        "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"],
    "s03-paths": ["এক backward:  [[5.0, 5.0, 5.0]] | w.grad [5.0, 5.0, 5.0]",
                  "দুই backward: [[5.0, 5.0, 5.0], [5.0, 5.0, 5.0]] | w.grad [10.0, 10.0, 10.0]"],
    "s04-clone": ["UserWarning: To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone()",
                  "w: [9.0, 1.0, 5.0] | own: [100.0, 1.0, 5.0]", "clone: CloneBackward0"],
    "s05-buffer": ["পরে: False True CopySlices", "আগে: True False"],
    "s08-hook": ["জমা হলো: tensor([-20., -20., -14.])", "এসেছিল:  tensor([-119.,  -42.,  -14.])"],
    "s05-item": ["loss.grad: tensor(1.) | w.grad: None",
                 "UserWarning: Converting a tensor with requires_grad=True to a scalar"],
    "s00-story": ["loss: [49.0, 49.0, 49.0]"],
    "s03-accumulate": ["b.grad = -14.0", "b.grad = -28.0", "b.grad = -42.0"],
    "s02-jacobian": ["tensor([7., 2., 0.]) tensor([7., 2., 0.])"],
    "s06-gradcheck": ["float64-এ gradcheck: True", "UserWarning: Input #0 requires gradient and is not a double",
                      "float32: Jacobian mismatch for output 0 with respect to input 0,"],
    "s07-grad": ["w.grad: None | b.grad: None"],
    "s08-round": ["w.grad: tensor([0., 0., 0.])"],
    "s08-use": ["RoundMinutes: pred 45.0, w.grad [-119.0, -42.0, -14.0]", "gradcheck: False"],
}


@pytest.mark.parametrize("label", sorted(REAL))
def test_each_promise_is_a_real_error_or_a_real_number(label, notebook, handout_text):
    text = outputs(notebook)[label]
    flat = handout_policy.squash(handout_policy.without_page_furniture(handout_text))
    for needle in REAL[label]:
        assert needle in text, (label, needle, text)
    assert handout_policy.squash(REAL[label][0]) in flat, label


def test_the_saved_tensor_trap_is_visible_before_backward(notebook):
    """The in-place figure marks ExpBackward0 with ✗ and both versions, drawn before the backward
    whose error the next cell shows."""
    cells = [c for c in notebook.cells if c.cell_type == "code"]
    labels = [c.metadata["lecture"]["label"] for c in cells]
    figure = cells[labels.index("fig-s05-saved")]
    dot = next(o["data"]["text/vnd.graphviz"] for o in figure.outputs if "data" in o)
    assert "ExpBackward0" in dot and "✗" in dot and "version এখন 1, backward চায় 0" in dot
    assert labels.index("fig-s05-saved") < labels.index("s05-saved-error")


def test_every_claim_of_the_lecture_holds(rendered):
    from lecturekit.check.run import check_lecture
    from lecturekit.project import Project
    checked = check_lecture(Project(ROOT), LECTURE.folder, update=False)
    assert not checked.failed and not checked.claims_failed
    assert checked.claims_total >= 50


# --- numbers in prose -------------------------------------------------------------------------

INLINE = re.compile(r"(?<!`)`\{python\}[^`\n]*`")
CLAIM = re.compile(r'\{\.claim check="[^"]*"\}')
FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")
MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.S)
# References and names, not results: episode, part, trap, exercise and script numbers, dtype and
# version names, list items, the divider's timing line for the presenter, and the formula the data is
# made by (its coefficients are the data's definition, `bazarghar.data`).
ALLOWED_NUMBERS = re.compile(
    r"(পর্ব|অংশ|ফাঁদ|অনুশীলনী|প্রশ্ন|লক্ষ্য) [০-৯]+(–[০-৯]+)?|float(32|64)|int64|PyTorch \d+\.\d+"
    r"|@fig-[\w-]+|code/scripts/08-autograd|[০-৯]{2}_\w+|^\s*\d+\. |^#\|.*$|\w+Backward\d+|element 0 of|^\| [০-৯]+ \||\d{2}_\w+\.py"
    r"|2\.5 \+ 0\.1·d|2\.5·d \+ 0\.05·d²|2 × 0\.05|3/√পণ্য|দুই গুণ 0\.05"
    r"|^\S+: \S+ [০-৯]+ মিনিট; \S+ [০-৯]+:[০-৯]+ থেকে [০-৯]+:[০-৯]+ \(পুরো পর্ব [০-৯]+ মিনিট\)")


def typed_numbers(text):
    text = CLAIM.sub(" ", INLINE.sub(" ", FENCE.sub("\n", text)))
    text = MATH.sub(" ", re.sub(r"\{[#.][^}]*\}", " ", CODE_SPAN.sub(" ", text)))
    hits = []
    for line in text.splitlines():
        line = ALLOWED_NUMBERS.sub(" ", line)
        hits += [line[max(0, m.start() - 30):m.end() + 10] for m in re.finditer(r"[0-9০-৯]", line)]
    return hits


@pytest.mark.parametrize("path", SECTIONS, ids=lambda p: p.stem)
def test_no_number_typed_in_prose(path):
    hits = typed_numbers(path.read_text(encoding="utf-8"))
    assert not hits, f"{path.name}: numbers typed by hand:\n" + "\n".join(hits)


def test_the_typed_number_check_sees_typed_numbers():
    assert typed_numbers("b.grad হলো −১৪") and typed_numbers("version 1 থেকে")
    assert not typed_numbers("পর্ব ০৯-এ `{python} bn(x)` আর `lr=1e-3`\n```{python}\nx = 3\n```\n")


# --- the student scripts ----------------------------------------------------------------------

def test_every_script_is_documented_and_numbered():
    scripts = sorted(p.name for p in SCRIPTS.glob("[0-9]*.py"))
    assert scripts == [f"{i:02d}_{n}.py" for i, n in enumerate(
        ["graph", "backward", "accumulate", "switches", "traps", "check_by_hand", "autograd_grad",
         "custom_function", "exercises"], 1)]


@pytest.fixture(scope="module")
def printed_by_scripts():
    """Every script's output, run in this process (torch imported once) as `python NN_x.py` runs it."""
    found = {}
    for script in sorted(SCRIPTS.glob("[0-9]*.py")):
        sys.path.insert(0, str(SCRIPTS))
        argv, sys.argv = sys.argv, [str(script)]
        from io import StringIO
        from contextlib import redirect_stdout
        buffer = StringIO()
        try:
            with redirect_stdout(buffer):
                runpy.run_path(str(script), run_name="__main__")
        finally:
            sys.argv = argv
            sys.path.remove(str(SCRIPTS))
        found[script.name] = buffer.getvalue()
    return found


def test_scripts_print_the_lectures_numbers_identically(printed_by_scripts, notebook):
    """Each script line that reports a quantity a cell of this lecture also prints (same words, same
    count of numbers) prints it exactly as the handout does."""
    shown = {}
    for text in outputs(notebook).values():
        for line in text.splitlines():
            if numbers(line) and skeleton(line):
                shown.setdefault(skeleton(line), []).append(line.rstrip())
    matched, disagree = 0, []
    for name, text in printed_by_scripts.items():
        assert text.strip(), f"{name} printed nothing"
        for line in text.splitlines():
            lines = shown.get(skeleton(line), [])
            if not numbers(line) or not lines:
                continue
            matched += 1
            if line.rstrip() not in lines:
                close = [s for s in lines if same_quantity(numbers(line), numbers(s))]
                if close:
                    disagree.append(f"{name}: {line.strip()} | lecture: {close[0].strip()}")
    assert matched >= 20, matched
    assert not disagree, "\n".join(disagree)


def test_whole_outputs_match_where_a_cell_calls_the_script_function(printed_by_scripts, notebook):
    cells = outputs(notebook)
    assert cells["s04-table"].strip() in printed_by_scripts["04_switches.py"]
    assert cells["s06-numpy"].strip() in printed_by_scripts["06_check_by_hand.py"]
    for line in cells["s08-use"].splitlines()[:4]:
        assert line in printed_by_scripts["08_custom_function.py"]
