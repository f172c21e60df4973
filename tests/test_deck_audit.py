"""An audit of every lecture's deck in Chromium, as projected at 1280x720: the part numbers are text and
run ০, ১, ২ … (one per section file), nothing projected is smaller than 16 px, no code or output
smaller than 24 px of the 1280x720 slide (read from the back of a room), every code token meets WCAG AA against what is
behind it (computed colours, opacity included), and every code slide says its point in a visible
sentence, not only in the speaker notes. Exercise and discussion numbers match the handout's."""
import unicodedata

import pytest

from helpers import LECTURES, lectures_with, pdf_text
from test_slides import open_deck


def evaluate_in_deck(browser, rendered, lecture, script):
    """What `script` returns in the lecture's deck, opened at its first slide."""
    context, page = open_deck(browser, rendered, lecture)
    try:
        return page.evaluate(script)
    finally:
        context.close()

BN_DIGITS = "০১২৩৪৫৬৭৮৯"
MIN_PX = 16.0
# Code and outputs, in the slide's own px (1280x720, before reveal scales the slide to the window:
# a 1280x720 window with the 0.06 margin shows them at 24 / 1.06 = 22.6 px, a 1920x1080 projector at 32).
MIN_CODE_PX = 24.0
MIN_CONTRAST = 4.5
# A takeaway is a sentence: at least this many letters outside code, output and notes.
MIN_SENTENCE = 25

# Walks every slide (each shown in turn, every fragment visible) and measures what is on it.
AUDIT = r"""
() => {
  // Measure the end state of every step, not a fade in progress.
  const still = document.createElement('style');
  still.textContent = '*, *::before, *::after { transition: none !important; animation: none !important; }';
  document.head.appendChild(still);
  const scale = Reveal.getScale();
  const parse = c => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return [0, 0, 0, 0];
    const v = m[1].split(',').map(parseFloat); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const blend = (top, bottom) => { const a = top[3];
    return [0, 1, 2].map(i => top[i] * a + bottom[i] * (1 - a)).concat([1]); };
  const lum = c => { const f = x => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  // What is painted behind an element: the backgrounds of its ancestors, composited bottom-up.
  const backdrop = el => {
    const chain = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) chain.push(e);
    let bg = [255, 255, 255, 1];
    for (const e of chain.reverse()) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) bg = blend(c, bg);
    }
    return bg;
  };
  const opacity = el => { let o = 1; for (let e = el; e && e.nodeType === 1; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity); return o; };
  const visible = el => { const cs = getComputedStyle(el); const r = el.getBoundingClientRect();
    return cs.display !== 'none' && cs.visibility !== 'hidden' && r.width > 0 && r.height > 0 && opacity(el) > 0.05; };
  const out = [];
  Reveal.getSlides().forEach((slide, index) => {
    const at = Reveal.getIndices(slide);
    // The last step: every fragment shown, the last one current (steppers show one explanation).
    const steps = Array.from(slide.querySelectorAll('.fragment')).map(f => +(f.getAttribute('data-fragment-index') || 0));
    Reveal.slide(at.h, at.v, steps.length ? Math.max(...steps) : -1);
    const id = slide.id || ('#' + (index + 1));
    const rec = {id, index: index + 1, divider: slide.classList.contains('title-slide') && slide.classList.contains('level1'),
                 part: null, small: [], smallcode: [], contrast: [], code: false, sentence: ''};
    if (rec.divider) { const p = slide.querySelector('h1 .part-number'); rec.part = p ? p.textContent.replace(/\s+/g, ' ').trim() : null; }
    // Text size: every visible text node outside the notes.
    const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!n.nodeValue.replace(/[\s\u200b]/g, "") || el.closest('aside.notes, .katex-mathml') || !visible(el)) continue;
      const px = parseFloat(getComputedStyle(el).fontSize) * scale;
      if (px < 16 - 0.05) rec.small.push({text: n.nodeValue.trim().slice(0, 40), px: Math.round(px * 10) / 10});
      if (el.closest('pre') && px / scale < 24 - 0.05) rec.smallcode.push({text: n.nodeValue.trim().slice(0, 40), px: Math.round(px / scale * 10) / 10});
    }
    // Contrast of every code token (every element holding text inside pre).
    slide.querySelectorAll('pre code, pre code *').forEach(el => {
      if (!visible(el) || el.closest('aside.notes')) return;
      const own = Array.from(el.childNodes).some(c => c.nodeType === 3 && c.nodeValue.trim());
      if (!own) return;
      const bg = backdrop(el);
      const fg = parse(getComputedStyle(el).color);
      const shown = blend([fg[0], fg[1], fg[2], fg[3] * opacity(el)], bg);
      const r = ratio(shown, bg);
      if (r < 4.5) rec.contrast.push({cls: el.className, text: el.textContent.trim().slice(0, 30), ratio: Math.round(r * 100) / 100});
    });
    // A code slide must say something in plain text: paragraphs and list items outside code,
    // outputs, tables, figures, steppers' code and notes.
    rec.code = !!slide.querySelector('pre code');
    const prose = Array.from(slide.querySelectorAll('p, li, .callout, .stepper-step, .quiz-question'))
      .filter(el => visible(el) && !el.closest('aside.notes, pre, figure, table, .cell-output'));
    rec.sentence = prose.map(el => el.innerText.trim()).filter(t => t).join(' | ').slice(0, 200);
    out.push(rec);
  });
  return out;
}
"""


@pytest.fixture(scope="module", params=LECTURES, ids=str)
def lecture(request):
    return request.param


@pytest.fixture(scope="module")
def audit(browser, rendered, lecture):
    records = evaluate_in_deck(browser, rendered, lecture, AUDIT)
    assert len(records) >= 40
    return records


def sections(lecture):
    """A lecture's parts: one per section file (`_NN-name.qmd`), or one when it has none."""
    return len([p for p in lecture.sources if p.name.startswith("_")]) or 1


def letters(text):
    """Letters and the vowel signs that belong to them (Bengali vowel signs are marks, not \\w)."""
    return sum(1 for c in text if unicodedata.category(c)[0] in "LM")


def test_part_numbers_are_text_running_from_zero(audit):
    parts = [r["part"] for r in audit if r["divider"]]
    assert all(parts), f"a divider without its part number as text: {parts}"
    numbers = [p.removeprefix("অংশ ").strip() for p in parts]
    expected = ["".join(BN_DIGITS[int(d)] for d in str(i)) for i in range(len(parts))]
    assert numbers == expected, numbers


def test_every_section_is_a_numbered_part(audit, lecture):
    assert len([r for r in audit if r["divider"]]) == sections(lecture)


def test_part_numbers_match_the_handout(audit, rendered, lecture):
    text = pdf_text(lecture.product(rendered, "handout.pdf"))
    for record in audit:
        if record["divider"]:
            assert record["part"] + " ·" in text, f"{record['part']} is not a handout heading"


def test_nothing_projected_below_16px(audit):
    small = {r["id"]: r["small"][:3] for r in audit if r["small"]}
    assert not small, f"text under {MIN_PX} px at 1280x720: {small}"


def test_code_at_24px_or_more(audit):
    assert any(r["code"] for r in audit), "no code on the slides: nothing measured"
    small = {r["id"]: r["smallcode"][:3] for r in audit if r["smallcode"]}
    assert not small, f"code or output under {MIN_CODE_PX} px at 1280x720: {small}"


# Graphs drawn with Graphviz (module trees, autograd graphs) are SVG pictures: their smallest label in
# the slide's own px, from the picture's drawn width, its viewBox and the font sizes Graphviz wrote.
TREE_LABELS = r"""
async () => {
  const out = [], scale = Reveal.getScale();
  for (const slide of Reveal.getSlides()) {
    const imgs = Array.from(slide.querySelectorAll('img'));
    if (!imgs.length) continue;
    const at = Reveal.getIndices(slide);
    Reveal.slide(at.h, at.v);
    for (const img of imgs) {
      const svg = await (await fetch(img.src)).text();
      if (!svg.includes('<!-- Generated by graphviz')) continue;
      const box = svg.match(/viewBox="[-\d.]+ [-\d.]+ ([\d.]+) [\d.]+"/);
      const sizes = Array.from(svg.matchAll(/font-size="([\d.]+)"/g)).map(m => +m[1]);
      out.push({id: slide.id, px: Math.min(...sizes) * img.getBoundingClientRect().width / +box[1] / scale});
    }
  }
  return out;
}
"""
MIN_TREE_PX = 18.0


@pytest.mark.parametrize("lecture", lectures_with(r"from (modtree|gradgraph) import|(modtree|gradgraph)\.draw"), ids=str)
def test_graph_labels_at_18px_or_more(browser, rendered, lecture):
    trees = evaluate_in_deck(browser, rendered, lecture, TREE_LABELS)
    assert trees, "the lecture draws graphs, but no slide shows one"
    small = {t["id"]: round(t["px"], 1) for t in trees if t["px"] < MIN_TREE_PX - 0.05}
    assert not small, f"graph labels under {MIN_TREE_PX} px on the slide: {small}"


def test_every_code_token_meets_wcag_aa(audit):
    low = {r["id"]: r["contrast"][:3] for r in audit if r["contrast"]}
    assert not low, f"code tokens under {MIN_CONTRAST}:1 against their background: {low}"


def test_every_code_slide_states_its_point(audit):
    silent = [r["id"] for r in audit if r["code"] and letters(r["sentence"]) < MIN_SENTENCE]
    assert not silent, f"code slides whose point is only in the notes: {silent}"


@pytest.mark.parametrize("lecture", lectures_with(r"\{\.(exercise|discussion)\b"), ids=str)
def test_exercise_and_discussion_numbers_match_the_handout(browser, rendered, lecture):
    names = evaluate_in_deck(browser, rendered, lecture, """() => Array.from(document.querySelectorAll('.question > p:first-child strong'))
            .map(s => s.textContent.trim())""")
    assert names, "no exercise or discussion question on the slides"
    text = " ".join(pdf_text(lecture.product(rendered, "handout.pdf")).split())
    for name in names:
        assert name in text, f"slides say {name!r}; the handout numbers it differently"


def test_slide_number_clear_of_the_arrows(browser, rendered, lecture):
    boxes = evaluate_in_deck(browser, rendered, lecture, """() => {
            const r = el => { const b = el.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
            const number = document.querySelector('.slide-number');
            const arrows = Array.from(document.querySelectorAll('.controls button'))
              .filter(b => getComputedStyle(b).display !== 'none').map(r);
            return {number: r(number), arrows};
        }""")
    x0, y0, x1, y1 = boxes["number"]
    assert x1 > x0 and boxes["arrows"], boxes
    for a0, b0, a1, b1 in boxes["arrows"]:
        assert x1 <= a0 or a1 <= x0 or y1 <= b0 or b1 <= y0, f"slide number {boxes['number']} covers an arrow"


@pytest.mark.parametrize("lecture", lectures_with(r"\{\.quiz\b"), ids=str)
def test_quiz_marks_the_right_option_when_the_answer_is_shown(browser, rendered, lecture):
    context, page = open_deck(browser, rendered, lecture)
    try:
        page.add_style_tag(content="*, *::after { transition: none !important; }")
        marks = page.evaluate("""() => {
            const quiz = document.querySelector('.quiz');
            const slide = quiz.closest('section');
            const at = Reveal.getIndices(slide);
            const right = quiz.querySelector('.quiz-option[data-correct="true"]');
            const wrong = quiz.querySelector('.quiz-option[data-correct="false"]');
            const look = b => getComputedStyle(b).borderColor + '|' + getComputedStyle(b, '::after').content;
            Reveal.slide(at.h, at.v, -1);
            const before = [look(right), look(wrong)];
            Reveal.slide(at.h, at.v, +quiz.querySelector('.quiz-explain').getAttribute('data-fragment-index'));
            return {before, after: [look(right), look(wrong)]};
        }""")
    finally:
        context.close()
    assert marks["before"][0] == marks["before"][1], "the right option stands out before the answer step"
    assert marks["after"][0] != marks["after"][1], "the answer step does not mark the right option"
    assert "ঠিক" in marks["after"][0]
