"""Lecture 10's own facts, on top of the tests every lecture gets (test_lectures.py, test_slides.py,
test_handout.py): its fifteen sections and handout-only pages, its cover, the key results (bit-identical
resume, gradients that accumulate, optimizer-state sizes, weights_only loading) coming out of our
executed code into the handout, no number typed by hand in its prose, and every student script
printing exactly what the handout shows."""
import os
import re
import subprocess
import sys

import nbformat
import pytest

import test_handout as handout_policy
from helpers import ROOT, Lecture, pdf_text, script_id
from test_lectures import handout_only_pages

LECTURE = Lecture("10-training-loop")
NAME = LECTURE.name
SCRIPTS = ROOT / "code" / "scripts" / NAME
SECTIONS = LECTURE.sources

# Each student script prints, in order, what these cells print in the lecture.
SCRIPT_CELLS = {
    "01_one_step.py": ["s01-script"],
    "02_zero_grad.py": ["s02-accumulate", "s02-forgotten"],
    "03_minibatch.py": ["s03-loader"],
    "04_train_val.py": ["s04-train-val", "s04-modes"],
    "05_learning_rate.py": ["s05-sweep"],
    "06_optimizer_state.py": ["s06-state", "s06-sizes"],
    "07_checkpoint.py": ["s07-checkpoint"],
    "08_resume.py": ["s08-resume", "s08-scheduler"],
    "09_exercises.py": ["s10-script"],
    "10_loss_functions.py": ["s09-regression", "s09-reduction", "s09-classify"],
    "11_update_rules.py": ["s06-by-hand"],
    "12_sanity_checks.py": ["s05-sanity"],
    "13_devices.py": ["s09d-script"],
    "14_mid_epoch.py": ["s09d-mid-proof"],
    "15_loader_rng.py": ["s03-rng"],
    "16_full_loop.py": ["s13-full-loop"],
}


@pytest.fixture(scope="module")
def handout_pdf(rendered):
    return LECTURE.product(rendered, "handout.pdf")


@pytest.fixture(scope="module")
def handout_text(handout_pdf):
    return pdf_text(handout_pdf)


@pytest.fixture(scope="module")
def notebook(rendered):
    return nbformat.read(str(LECTURE.notebook), as_version=4)


def cell_stdout(notebook):
    out = {}
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        label = cell.metadata["lecture"]["label"]
        out[label] = "".join(o.get("text", "") for o in cell.outputs
                             if o.get("output_type") == "stream" and o.get("name") == "stdout")
    return out


def test_fifteen_sections_and_handout_only_pages(rendered):
    assert len(SECTIONS) == 15
    assert len(handout_only_pages(rendered, LECTURE)) >= 5


def test_many_cells_ran(notebook):
    assert len([c for c in notebook.cells if c.cell_type == "code"]) >= 25


def test_title_slide_and_cover(rendered, handout_pdf):
    html = " ".join(LECTURE.product(rendered, "slides.html").read_text(encoding="utf-8").split())
    for text in ("বাংলায় PyTorch", "পর্ব ১০ · ৯১-এর মধ্যে · মডিউল ২", "Training loop আর checkpoint",
                 "The Training Loop and Checkpoints"):
        assert text in html, text
    cover = handout_policy.pdf_text_page(handout_pdf, 1)
    for part in ("বাংলায় PyTorch", "পর্ব ১০", "৯১-এর মধ্যে", "মডিউল ২", "Training loop আর checkpoint"):
        assert part in cover, part


def test_numbered_figures_and_boxes(handout_text):
    for box in ("ছবি ১০.১", "ছবি ১০.২", "ছবি ১০.৩", "ছবি ১০.৪", "মনে রাখুন", "শব্দকোষ", "অনুশীলনী ১", "প্রশ্ন ১"):
        assert box in handout_text, box


# --- the lecture's own facts in the handout ---------------------------------------------------

def test_resume_is_bit_identical_and_omissions_differ(notebook, handout_text):
    out = cell_stdout(notebook)["s08-resume"]
    assert "torch.equal(না থেমে, resume): loss True, parameter True" in out
    assert "optimizer বাদ" in out and "RNG বাদ" in out and out.count("(equal False)") == 2
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
    assert "SGD: {'momentum_buffer': 209}" in out
    assert "Adam: {'step': 6, 'exp_avg': 209, 'exp_avg_sq': 209}" in out
    assert "প্রতিটি id-র Adam step-এর মান = 10" in out
    assert "৪১৮" in handout_text  # Adam's two running averages, an inline value


def test_mid_epoch_resume_is_bit_identical_and_the_moment_state_is_not(notebook, handout_text):
    out = cell_stdout(notebook)["s09d-mid-proof"]
    assert "torch.equal(না থেমে, resume): loss True, parameter True" in out
    assert "থামার মুহূর্তের generator দিয়ে: equal False" in out
    assert "generator এগিয়ে গেছে: True" in out
    assert "না-থামা run-এর সঙ্গে এক: True" in cell_stdout(notebook)["s09d-mid-resume"]


def test_devices_on_a_cpu_machine(notebook):
    out = cell_stdout(notebook)["s09d-map"]
    assert out.startswith("RuntimeError: Attempting to deserialize object on a CUDA device")
    assert "cpu | মান এক: True" in out
    order = cell_stdout(notebook)["s09d-order"]
    assert "exp_avg: torch.float64" in order and "load → .to: state float32, step()-এ RuntimeError" in order
    assert "নতুন Parameter: একই False, শিখল: False" in order


def test_loader_rng_and_worker_seeding(notebook):
    out = cell_stdout(notebook)["s03-rng"]
    assert "generator ছাড়া: False (shuffle বন্ধেও False) | নিজের generator: True" in out
    copied = re.search(r"^\s+(\d+) +(\d+) +(\d+) +(\d+)\s+dataset\.rng, init ছাড়া", out, re.M)
    assert copied and copied[1] == copied[2] and copied[3] == copied[4], out
    assert "আবার চালালে একই: True | generator-এর অন্য seed-এ অন্য: True" in out


def test_full_loop_exercise_resumes_exactly(notebook, handout_text):
    out = cell_stdout(notebook)["s13-full-loop"]
    assert out.strip().endswith("torch.equal(না থেমে, resume): history True, parameter True")
    assert "def resume(path, seed):" in handout_text  # the answer's code, not a call to it


def test_checkpoint_loads_with_weights_only(notebook, handout_text):
    out = cell_stdout(notebook)["s07-checkpoint"]
    assert "weights_only=True-তে খুলল; epoch 10" in out
    assert "History object: weights_only=True-তে UnpicklingError" in out
    assert "UnpicklingError" in handout_text


def test_every_claim_of_the_lecture_holds():
    result = subprocess.run([str(ROOT / "scripts" / "check"), NAME, "--quiet"], cwd=ROOT,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    # The one-line report when everything holds: "OK: … outputs, … prose values, N claims as recorded".
    claims = re.search(r"OK: .*?(\d+) claims as recorded", result.stdout)
    assert claims and int(claims[1]) >= 40, result.stdout


# --- numbers in prose -------------------------------------------------------------------------

INLINE = re.compile(r"(?<!`)`\{python\}[^`\n]*`")
CLAIM = re.compile(r'\{\.claim check="[^"]*"\}')
FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")
# References and names, not results: episode, part, list-item and script numbers, dtype and version names,
# and a part divider's timing line for the presenter (minutes and clock, a plan rather than a result).
ALLOWED_NUMBERS = re.compile(
    r"(পর্ব|অংশ|ধাপ|অনুশীলনী|প্রশ্ন|script|কারণ|id) [০-৯]+(–[০-৯]+)?|float(32|64)|PyTorch \d+\.\d+"
    r"|@fig-[\w-]+|code/scripts/10-training-loop|[০-৯]{2}_\w+|\([০-৯], [০-৯], [০-৯]…\)|^\s*\d+\. |^#\|.*$"
    r"|^\S+: \S+ [০-৯]+ মিনিট; \S+ [০-৯]+:[০-৯]+ থেকে [০-৯]+:[০-৯]+ \(পুরো পর্ব [০-৯]+ মিনিট\)")


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


@pytest.mark.parametrize("script", [SCRIPTS / name for name in sorted(SCRIPT_CELLS)], ids=script_id)
def test_script_prints_what_the_handout_shows(script, notebook, handout_text, script_runs):
    """The script's one run of the session (helpers.ScriptRuns, shared with test_bazarghar and
    test_scripts), printed line for line as the lecture's cells print it."""
    name = script.name
    run = script_runs.of(script)
    assert run.returncode == 0, run.stderr
    printed = run.stdout
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


# --- the course code the lecture relies on ----------------------------------------------------

def test_checkpoint_round_trip_restores_every_state(tmp_path):
    sys.path.insert(0, str(ROOT / "code"))
    import torch
    from bazarghar.checkpoint import CHECKPOINT_KEYS, load_checkpoint, save_checkpoint
    from bazarghar.experiments import adam_setup
    from bazarghar.loop import fit

    split, model, opt, loader = adam_setup()
    history = fit(model, opt, loader, split, 2)
    path = save_checkpoint(tmp_path / "c.pt", model, opt, 2, loader, history)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.pt"], "no temporary file left behind"
    assert list(torch.load(path, weights_only=True)) == list(CHECKPOINT_KEYS)
    rng_after_save = torch.get_rng_state()

    _, other, other_opt, other_loader = adam_setup(model_seed=7, loader_seed=7)
    done, restored = load_checkpoint(path, other, other_opt, other_loader)
    assert done == 2 and restored.train == history.train and restored.val == history.val
    assert all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), other.state_dict().values()))
    assert other_opt.state_dict()["state"][0]["step"] == opt.state_dict()["state"][0]["step"]
    assert torch.equal(torch.get_rng_state(), rng_after_save)
    assert torch.equal(other_loader.generator.get_state(), loader.generator.get_state())

    # Left out on purpose: the optimizer keeps its empty state, the loader its own generator.
    _, third, third_opt, third_loader = adam_setup(model_seed=8, loader_seed=8)
    load_checkpoint(path, third, third_opt, third_loader, optimizer=False, rng=False)
    assert third_opt.state_dict()["state"] == {}
    assert not torch.equal(third_loader.generator.get_state(), loader.generator.get_state())


def test_resume_audit_passes_for_the_course_checkpoint():
    sys.path.insert(0, str(ROOT / "code"))
    from bazarghar.experiments import resumes_exactly

    assert resumes_exactly(epochs=1)
