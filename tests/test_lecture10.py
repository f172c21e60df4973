"""Lecture 10 (training loop and checkpoints) as a whole: every section reaches both products,
every cell ran, the key results come out of our executed code into the handout, the deck and the
handout meet the same layout policies as lecture 09, the prose types no number, and every student
script prints exactly what the handout shows."""
import os
import re
import subprocess
import sys

import nbformat
import pytest

import test_handout as handout_policy
import test_slides as slides_policy
from conftest import ROOT, pdf_text

NAME = "10-training-loop"
LECTURE = ROOT / "lectures" / NAME
NOTEBOOK = ROOT / "_build" / NAME / f"{NAME}.ipynb"
SCRIPTS = ROOT / "code" / "scripts" / NAME
SECTIONS = sorted(LECTURE.glob("_*.qmd"))
HEADING = re.compile(r"^# (?P<text>.+?)\s*\{#(?P<id>[\w-]+)\}\s*$", re.M)
SLIDE = re.compile(r"^## (?P<text>.+?)\s*\{#(?P<id>[\w-]+)\}\s*$", re.M)

# Each student script prints, in order, what these cells print in the lecture.
SCRIPT_CELLS = {
    "01_one_step.py": ["s01-script"],
    "02_zero_grad.py": ["s02-accumulate", "s02-forgotten"],
    "03_minibatch.py": ["s03-loader"],
    "04_train_val.py": ["s04-train-val", "s04-modes"],
    "05_learning_rate.py": ["s05-sweep"],
    "06_optimizer_state.py": ["s06-state", "s06-sizes"],
    "07_checkpoint.py": ["s07-checkpoint"],
    "08_resume.py": ["s08-resume"],
    "09_exercises.py": ["s10-script"],
}


@pytest.fixture(scope="module")
def handout_pdf(rendered):
    return rendered / NAME / "handout.pdf"


@pytest.fixture(scope="module")
def handout_text(handout_pdf):
    return pdf_text(handout_pdf)


@pytest.fixture(scope="module")
def slides_html(rendered):
    return (rendered / NAME / "slides.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def notebook(rendered):
    return nbformat.read(str(NOTEBOOK), as_version=4)


def cell_stdout(notebook):
    out = {}
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        label = cell.metadata["lecture"]["label"]
        out[label] = "".join(o.get("text", "") for o in cell.outputs
                             if o.get("output_type") == "stream" and o.get("name") == "stdout")
    return out


# --- structure -------------------------------------------------------------------------------

def test_every_section_file_is_included():
    index = (LECTURE / "index.qmd").read_text(encoding="utf-8")
    assert len(SECTIONS) == 12
    for path in SECTIONS:
        assert f"{{{{< include {path.name} >}}}}" in index


@pytest.mark.parametrize("path", SECTIONS, ids=lambda p: p.stem)
def test_section_reaches_slides_and_handout(path, handout_text, slides_html):
    match = HEADING.search(path.read_text(encoding="utf-8"))
    assert match, f"{path.name} has no level-1 heading with an id"
    assert re.search(rf'<section id="{match["id"]}" class="[^"]*title-slide', slides_html), match["id"]
    assert match["text"].replace("`", "") in handout_text.replace("\n", " ")


def test_every_heading_has_an_id_and_handout_only_pages_stay_out_of_the_deck(handout_text, slides_html):
    flat = handout_text.replace("\n", " ")
    handout_only = []
    for path in SECTIONS:
        source = path.read_text(encoding="utf-8")
        headings = re.findall(r"^#{1,3} .*$", FENCE.sub("", source), re.M)
        assert all(re.search(r"\{#sec-[\w-]+\}\s*$", h) for h in headings), path.name
        for match in SLIDE.finditer(source):
            before = source[:match.start()].rstrip().splitlines()[-1]
            assert match["text"].replace("`", "").split(":")[0].strip() in flat, match["text"]
            on_slides = f'<section id="{match["id"]}"' in slides_html
            if 'content-visible when-format="typst"' in before:
                handout_only.append(match["id"])
                assert not on_slides, match["id"]
            else:
                assert on_slides, match["id"]
    assert len(handout_only) >= 5, handout_only


def test_every_cell_executed_and_no_unexpected_error(notebook):
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert len(code) >= 25
    for cell in code:
        meta = cell.metadata["lecture"]
        raised = any(o.get("output_type") == "error" for o in cell.outputs)
        assert raised == bool(meta["options"].get("error", False)), (meta["label"], meta["file"], meta["line"])


# --- the lecture's own facts in the handout ---------------------------------------------------

def test_resume_is_bit_identical_and_omissions_differ(notebook, handout_text):
    out = cell_stdout(notebook)["s08-resume"]
    assert "torch.equal(না থেমে, resume): loss True, parameter True" in out
    assert "optimizer বাদ: equal False" in out and "RNG বাদ:       equal False" in out
    assert "loss True, parameter True" in handout_text


def test_gradient_accumulation_numbers_in_the_handout(notebook, handout_text):
    out = cell_stdout(notebook)["s02-accumulate"]
    factors = re.findall(r"প্রথমটির (\S+) গুণ", out)
    assert factors == ["1.000", "2.000", "3.000"], factors
    grads = [float(g) for g in re.findall(r"head\.bias\.grad =\s+(\S+)", out)]
    assert grads[1] == pytest.approx(2 * grads[0], rel=1e-6) and grads[2] == pytest.approx(3 * grads[0], rel=1e-6)
    flat = handout_policy.squash(handout_text)
    assert handout_policy.squash(out) in flat
    assert "zero_grad-এর পরে: None" in handout_text


def test_optimizer_state_sizes(notebook, handout_text):
    out = cell_stdout(notebook)["s06-sizes"]
    assert "model-এর parameter: 209" in out
    assert "SGD-এর state: {'momentum_buffer': 209}" in out
    assert "Adam-এর state: {'step': 6, 'exp_avg': 209, 'exp_avg_sq': 209}" in out
    assert "৪১৮" in handout_text  # Adam's two running averages, an inline value


def test_checkpoint_loads_with_weights_only(notebook, handout_text):
    out = cell_stdout(notebook)["s07-checkpoint"]
    assert "weights_only=True-তে খুলল; epoch = 10" in out
    assert "History object রাখলে weights_only=True: UnpicklingError" in out
    assert "UnpicklingError" in handout_text


def test_every_claim_of_the_lecture_holds():
    result = subprocess.run([str(ROOT / "scripts" / "check"), NAME, "--quiet"], cwd=ROOT,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    claims = re.search(r"claims: (\d+) of (\d+) hold", result.stdout)
    assert claims and claims[1] == claims[2] and int(claims[2]) >= 40, result.stdout


# --- numbers in prose -------------------------------------------------------------------------

INLINE = re.compile(r"(?<!`)`\{python\}[^`\n]*`")
CLAIM = re.compile(r'\{\.claim check="[^"]*"\}')
FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")
# References and names, not results: episode, part, list-item and script numbers, dtype and version names.
ALLOWED_NUMBERS = re.compile(
    r"(পর্ব|অংশ|ধাপ|অনুশীলনী|প্রশ্ন|script|কারণ|id) [০-৯]+(–[০-৯]+)?|float(32|64)|PyTorch \d+\.\d+"
    r"|@fig-[\w-]+|code/scripts/10-training-loop|[০-৯]{2}_\w+|\([০-৯], [০-৯], [০-৯]…\)|^\s*\d+\. |^#\|.*$")


def typed_numbers(text):
    text = CLAIM.sub(" ", INLINE.sub(" ", FENCE.sub("\n", text)))
    text = re.sub(r"\{[#.][^}]*\}", " ", CODE_SPAN.sub(" ", text))
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
    assert typed_numbers("loss নেমে ৭.২৭ হলো") and typed_numbers("seed 123 দিয়ে")
    assert not typed_numbers("পর্ব ০৯-এ `{python} bn(x)` আর `lr=1e-3`\n```{python}\nx = 3\n```\n")


# --- the same layout policies as lecture 09 ---------------------------------------------------

@pytest.fixture
def as_lecture10(monkeypatch):
    """The handout policy functions read the lecture's sources and notebook from module globals."""
    monkeypatch.setattr(handout_policy, "LECTURE", LECTURE)
    monkeypatch.setattr(handout_policy, "NOTEBOOK", NOTEBOOK)


def test_handout_size_fonts_and_language(handout_pdf):
    handout_policy.test_fonts_embedded(handout_pdf)
    handout_policy.test_size_pages_language_tags(handout_pdf)


def test_handout_prose_outputs_and_code_round_trip(as_lecture10, handout_pdf, handout_text):
    handout_policy.test_bengali_prose_round_trips(handout_text)
    handout_policy.test_every_output_appears(handout_text)
    handout_policy.test_code_copies_without_line_numbers_and_runs(handout_pdf, handout_text)


def test_handout_answers_only_in_the_appendix(as_lecture10, handout_text):
    handout_policy.test_answers_only_in_the_appendix(handout_text)


def test_handout_cover_and_boxes(handout_pdf, handout_text):
    first = handout_policy.pdf_text_page(handout_pdf, 1)
    for part in ("বাংলায় PyTorch", "পর্ব ১০", "৯১-এর মধ্যে", "Training loop আর checkpoint"):
        assert part in first, part
    for box in ("মনে রাখুন", "শব্দকোষ", "অনুশীলনী ১", "প্রশ্ন ১", "ছবি ১০.১"):
        assert box in handout_text, box


@pytest.fixture(scope="module")
def deck10(browser, rendered):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    requests, console = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: console.append((m.type, m.text)) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: console.append(("pageerror", str(e))))
    page.goto((rendered / NAME / "slides.html").as_uri())
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    page.evaluate("document.fonts.ready.then(() => true)")
    page.wait_for_timeout(300)
    page.requests, page.console = requests, console
    yield page
    context.close()


def test_deck_offline_quiet_and_condensed(deck10):
    slides_policy.test_offline_and_quiet(deck10)
    slides_policy.test_deck_is_a_condensed_lecture(deck10)


def test_deck_every_step_inside_the_frame(deck10):
    slides_policy.test_every_step_inside_the_frame(deck10)


def test_deck_notes_on_every_content_slide(slides_html):
    sections = re.findall(r'<section id="(sec-[\w-]+)" class="([^"]*)"(.*?)(?=<section id=|\Z)', slides_html, re.S)
    content = [(i, body) for i, cls, body in sections if "title-slide" not in cls]
    assert len(content) >= 35
    missing = [i for i, body in content if 'class="notes"' not in body]
    assert not missing, missing


# --- the student scripts ----------------------------------------------------------------------

def run_script(name, tmp_path, *args):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the script finds the package itself
    env["MPLBACKEND"] = "Agg"
    result = subprocess.run([sys.executable, str(SCRIPTS / name), *args], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_every_experiment_has_a_script():
    assert sorted(p.name for p in SCRIPTS.glob("[0-9]*.py")) == sorted(SCRIPT_CELLS)


@pytest.mark.parametrize("name", sorted(SCRIPT_CELLS))
def test_script_prints_what_the_handout_shows(name, notebook, handout_text, tmp_path):
    printed = run_script(name, tmp_path)
    cells = cell_stdout(notebook)
    expected = "".join(cells[label] for label in SCRIPT_CELLS[name])
    strip = lambda s: "\n".join(l.rstrip() for l in s.strip().splitlines())  # noqa: E731
    assert strip(printed) == strip(expected)
    flat = handout_policy.squash(handout_policy.without_page_furniture(handout_text))
    for label in SCRIPT_CELLS[name]:
        assert handout_policy.squash(cells[label]) in flat, label


def test_plot_flag_writes_the_figure(tmp_path):
    printed = run_script("04_train_val.py", tmp_path, "--plot")
    assert "validation" in printed
    png = tmp_path / "loss_curves.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
