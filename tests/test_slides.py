"""Every lecture's deck in a real browser (system Chromium): offline, every step inside the frame,
steppers that step with their explanations, quizzes that answer by mouse and keyboard, real Bengali
glyphs, speaker notes on every content slide, Bengali slide numbers and the overview. Each test runs
over every lecture found under lectures/ (or every lecture that uses the construct it tests)."""
import re

import pytest

from helpers import ROOT, every_lecture, lectures_with

ARTIFACTS = ROOT / "tests" / "artifacts"
STEPPERS = lectures_with(r"\{\.stepper\b")
QUIZZES = lectures_with(r"\{\.quiz\b")
BN_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")

# Every visible box of the current slide against the 1280x720 frame, and every box inside a scrolling
# box against what that box shows (its padding box, within the boxes around it): a code line that
# starts left of its panel or runs past it is cut, though the panel does not scroll (scrollWidth counts
# no overflow to the left). A scrolling box whose content overflows is reported once, as cut.
STEP_REPORT = r"""
() => {
  const frame = document.querySelector('.reveal .slides').getBoundingClientRect();
  const slide = Reveal.getCurrentSlide();
  const outside = [], cut = [];
  const shown = el => { const cs = getComputedStyle(el);
    return cs.visibility !== 'hidden' && cs.display !== 'none' && parseFloat(cs.opacity) > 0; };
  const scrolls = el => /(auto|scroll|hidden|clip)/.test(getComputedStyle(el).overflowY + getComputedStyle(el).overflowX);
  const name = el => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '');
  const beyond = (r, c, slack) => Math.round(Math.max(r.bottom - c.bottom, r.right - c.right, c.top - r.top, c.left - r.left) - slack);
  // `clip`: what the scrolling boxes around `el` let show (their padding boxes), and the box that clips.
  const walk = (el, clip) => {
    for (const child of el.children) {
      if (child.tagName === 'ASIDE' || child.classList.contains('katex-mathml') || !shown(child)) continue;
      const r = child.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) {
        if (r.left < frame.left - 2 || r.right > frame.right + 2 || r.top < frame.top - 4 || r.bottom > frame.bottom + 2)
          outside.push({box: name(child), text: child.textContent.trim().slice(0, 50),
                        by: Math.round(Math.max(r.bottom - frame.bottom, r.right - frame.right, frame.top - r.top, frame.left - r.left))});
        else if (clip && beyond(r, clip.rect, 2) > 0)
          cut.push({box: name(child), text: child.textContent.trim().slice(0, 50), marked: !!child.closest('.scrollable'),
                    in: name(clip.box), hidden: beyond(r, clip.rect, 0), wide: 0});
      }
      // A formula's or a drawing's parts are clipped by their own viewport.
      if (child.classList.contains('katex') || child.tagName.toLowerCase() === 'svg') continue;
      let inner = clip;
      if (scrolls(child)) {
        if (child.scrollHeight > child.clientHeight + 2 || child.scrollWidth > child.clientWidth + 2) {
          cut.push({box: name(child), text: child.textContent.trim().slice(0, 50),
                    marked: !!child.closest('.scrollable'),
                    hidden: child.scrollHeight - child.clientHeight, wide: child.scrollWidth - child.clientWidth});
          continue;
        }
        // What it shows: its padding box (inside its borders and scroll bars).
        const left = r.left + child.clientLeft, top = r.top + child.clientTop;
        const rect = {left, top, right: left + child.clientWidth, bottom: top + child.clientHeight};
        if (clip) { rect.left = Math.max(rect.left, clip.rect.left); rect.top = Math.max(rect.top, clip.rect.top);
                    rect.right = Math.min(rect.right, clip.rect.right); rect.bottom = Math.min(rect.bottom, clip.rect.bottom); }
        inner = {rect, box: child};
      }
      walk(child, inner);
    }
  };
  walk(slide, null);
  return {outside, cut};
}
"""


# What of the current slide a presenter's chrome covers: the lines of visible text, pictures and code
# panels that meet the arrows, the menu button or the slide number (text by its line boxes, so a
# short last line beside the arrows passes).
UNDER_CHROME = r"""
() => {
  const chrome = Array.from(document.querySelectorAll('.reveal .controls button, .reveal .slide-number, .slide-menu-button'))
    .filter(el => getComputedStyle(el).display !== 'none').map(el => el.getBoundingClientRect()).filter(r => r.width > 0);
  const meets = r => chrome.some(c => r.width > 0 && r.height > 0 &&
    !(r.right <= c.left || c.right <= r.left || r.bottom <= c.top || c.bottom <= r.top));
  const shown = el => { for (let e = el; e && e.nodeType === 1; e = e.parentElement) { const cs = getComputedStyle(e);
    if (cs.display === 'none' || cs.visibility === 'hidden' || parseFloat(cs.opacity) === 0) return false; } return true; };
  const slide = Reveal.getCurrentSlide(), under = [];
  const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.nodeValue.trim() || el.closest('aside, .katex-mathml') || !shown(el)) continue;
    const range = document.createRange(); range.selectNodeContents(n);
    if (Array.from(range.getClientRects()).some(meets)) under.push(n.nodeValue.trim().slice(0, 40));
  }
  slide.querySelectorAll('img, svg, pre').forEach(el => {
    if (!el.closest('aside, .katex') && shown(el) && meets(el.getBoundingClientRect())) under.push(el.tagName.toLowerCase());
  });
  return [...new Set(under)];
}
"""


BENGALI_NUMBER = "(t => /[০-৯]/.test(t) && !/[0-9]/.test(t))(document.querySelector('.slide-number').innerText)"


def show(page, ident):
    """Go to the slide with this id and wait until reveal.js has made it the present slide."""
    page.evaluate(f"location.hash = '#/{ident}'")
    page.wait_for_function(f"Reveal.getCurrentSlide() && Reveal.getCurrentSlide().id === '{ident}'")


def open_deck(browser, rendered, lecture, fragment="", **context_args):
    context = browser.new_context(viewport={"width": 1280, "height": 720}, **context_args)
    page = context.new_page()
    page.goto(lecture.product(rendered, "slides.html").as_uri() + fragment)
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    page.evaluate("document.fonts.ready.then(() => true)")
    return context, page


@pytest.fixture(scope="module")
def decks(browser, rendered):
    """Each lecture's deck, loaded once when a test first asks for it; `requests` and `console`
    record what it did while loading."""
    pages, contexts = {}, []

    def load(lecture):
        if lecture.name not in pages:
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            contexts.append(context)
            page = context.new_page()
            requests, console = [], []
            page.on("request", lambda r: requests.append(r.url))
            # highlight.js reports through console.log("WARN: …"): a warning all the same.
            page.on("console", lambda m: console.append((m.type, m.text))
                    if m.type in ("error", "warning") or m.text.startswith("WARN") else None)
            page.on("pageerror", lambda e: console.append(("pageerror", str(e))))
            page.goto(lecture.product(rendered, "slides.html").as_uri())
            page.wait_for_function("window.Reveal && Reveal.isReady()")
            page.evaluate("document.fonts.ready.then(() => true)")
            page.wait_for_timeout(300)
            page.requests, page.console = requests, console
            pages[lecture.name] = page
        return pages[lecture.name]

    yield load
    for context in contexts:
        context.close()


@pytest.fixture
def deck(decks, lecture):
    return decks(lecture)


def slides_of(page):
    return page.evaluate("""Reveal.getSlides().map(s => ({id: s.id, h: Reveal.getIndices(s).h, v: Reveal.getIndices(s).v || 0,
        title: (s.querySelector('h1, h2') || {innerText: ''}).innerText.trim(),
        level1: s.classList.contains('level1') || s.id === 'title-slide',
        steps: new Set([...s.querySelectorAll('.fragment')].map(f => f.getAttribute('data-fragment-index'))).size}))""")


def go(page, slide, fragment=-1):
    page.evaluate(f"Reveal.slide({slide['h']}, {slide['v']}, {fragment})")


def ids_with(page, selector):
    """Ids of the slides holding `selector`, in deck order."""
    return page.evaluate(f"Reveal.getSlides().filter(s => s.id && s.querySelector({selector!r})).map(s => s.id)")


def content_ids(page):
    return [s["id"] for s in slides_of(page) if s["id"] and not s["level1"]]


@every_lecture
def test_offline_and_quiet(deck):
    network = [u for u in deck.requests if not u.startswith(LOCAL_SCHEMES)]
    assert network == [], f"network requests: {network}"
    assert deck.console == [], f"console errors/warnings: {deck.console}"


@every_lecture
def test_deck_is_a_condensed_lecture(deck):
    """The slides are the instructor's condensed version: roughly 40-90 slides, dividers included
    (code at 24 px for a room needs a few more slides than a page would)."""
    total = deck.evaluate("Reveal.getTotalSlides()")
    print(f"deck: {total} slides")
    assert 40 <= total <= 90, total


@every_lecture
def test_every_step_inside_the_frame(deck):
    """Policy: nothing outside 1280x720 at any step; a scrolling code/output box may hide content
    only when the author marked it `.scrollable`; no text, picture or code panel under the arrows,
    the menu button or the slide number."""
    outside, cut, under = [], [], []
    slides = slides_of(deck)
    for slide in slides:
        for step in range(-1, slide["steps"]):
            go(deck, slide, step)
            report = deck.evaluate(STEP_REPORT)
            where = f"{slide['id']} «{slide['title']}» step {step + 1}"
            outside += [f"{where}: {b['box']} «{b['text']}» {b['by']}px out" for b in report["outside"]]
            cut += [f"{where}: {b['box']} «{b['text']}» hides {b['hidden']}px down, {b['wide']}px across"
                    for b in report["cut"] if not b["marked"]]
            under += [f"{where}: «{what}»" for what in deck.evaluate(UNDER_CHROME)]
    print(f"{len(slides)} slides, {sum(s['steps'] + 1 for s in slides)} steps checked")
    assert not outside, "outside the frame:\n" + "\n".join(dict.fromkeys(outside))
    assert not cut, "scrolling box cut, not marked .scrollable:\n" + "\n".join(dict.fromkeys(cut))
    assert not under, "under the arrows, menu button or slide number:\n" + "\n".join(dict.fromkeys(under))


CLOCK = re.compile(r"([০-৯]+):([০-৯]+) থেকে ([০-৯]+):([০-৯]+)")


@every_lecture
def test_every_part_divider_gives_the_instructor_its_time(deck):
    """Each part's divider tells the presenter, in the speaker notes, the minutes the part takes and
    where the clock should stand (from h:mm to h:mm); the parts follow each other without a gap."""
    notes = deck.evaluate("""[...document.querySelectorAll('section.level1.title-slide')].map(s =>
        [s.id, ((s.querySelector('aside.notes') || {}).textContent || '').replace(/\\s+/g, ' ')])""")
    assert notes, "no part dividers"
    digits = str.maketrans("০১২৩৪৫৬৭৮৯", "0123456789")
    clock, problems = 0, []
    for ident, text in notes:
        match = CLOCK.search(text)
        if not match or "মিনিট" not in text:
            problems.append(f"{ident}: no time in the notes ({text[:60]!r})")
            continue
        h0, m0, h1, m1 = (int(g.translate(digits)) for g in match.groups())
        if h0 * 60 + m0 != clock or h1 * 60 + m1 <= clock:
            problems.append(f"{ident}: {match.group(0)} does not follow {clock // 60}:{clock % 60:02d}")
        clock = h1 * 60 + m1
    assert not problems, "\n".join(problems)


def _steps(spec):
    parts = spec.split("|")
    return parts[1:] if parts and parts[0] == "" else parts


def _lines(step):
    out = []
    for part in step.split(","):
        a, _, b = part.strip().partition("-")
        out += [str(n) for n in range(int(a), int(b or a) + 1)]
    return out


def declared_specs(rendered, lecture):
    """Each stepper slide's `code-line-numbers`, as the renderer wrote it (before reveal.js runs)."""
    html = lecture.product(rendered, "slides.html").read_text(encoding="utf-8")
    specs = {}
    for section in re.split(r"<section ", html):
        ident = re.match(r'id="([^"]+)"', section)
        spec = re.search(r'data-line-numbers="([^"]*)"', section)
        if ident and spec and "stepper-slide" in section:
            specs[ident.group(1)] = spec.group(1)
    return specs


@pytest.mark.parametrize("lecture", STEPPERS, ids=str)
def test_steppers_step_with_their_explanations(deck, rendered, lecture):
    specs = declared_specs(rendered, lecture)
    slides = [s for s in slides_of(deck) if deck.evaluate(
        f"!!Reveal.getSlide({s['h']}, {s['v']}).querySelector('.stepper-slide')")]
    assert slides, "the lecture has steppers"
    problems = []
    for slide in slides:
        go(deck, slide, -1)
        steps = _steps(specs[slide["id"]])
        count = deck.evaluate("Reveal.getCurrentSlide().querySelectorAll('.stepper-step').length")
        if count != len(steps):
            problems.append(f"{slide['id']}: declares {len(steps)} steps, explains {count}")
            continue
        # The first step shows the whole code, then one highlight per declared step.
        for k, declared in enumerate(steps, 1):
            go(deck, slide, k - 1)
            state = deck.evaluate("""() => {
              const s = Reveal.getCurrentSlide();
              const code = [...s.querySelectorAll('.stepper-slide code.hljs')].filter(c => c.classList.contains('current-fragment'))[0];
              const current = [...s.querySelectorAll('.stepper-step.current-fragment')];
              return {lines: code ? [...code.querySelectorAll('tr.highlight-line td[data-line-number]')]
                                    .filter(td => td.classList.contains('hljs-ln-numbers')).map(td => td.getAttribute('data-line-number')) : null,
                      step: current.map(c => c.textContent.trim().slice(0, 2)),
                      opaque: current.map(c => getComputedStyle(c).opacity)};
            }""")
            if state["lines"] != _lines(declared):
                problems.append(f"{slide['id']} step {k}: highlighted {state['lines']}, declared {declared}")
            expected = re.sub(r"\d", lambda d: "০১২৩৪৫৬৭৮৯"[int(d.group())], str(k)) + "."
            if len(state["step"]) != 1 or not state["step"][0].startswith(expected[:2].rstrip(".")):
                problems.append(f"{slide['id']} step {k}: explanation shown {state['step']}, expected {expected}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lecture", QUIZZES, ids=str)
def test_the_right_option_is_not_the_tell(deck, lecture):
    """A class votes on the options, so the right one must not stand out by its length: it may be
    the longest (in letters) in at most half of a lecture's quizzes."""
    quizzes = deck.evaluate("""() => [...document.querySelectorAll('.quiz')].map(q => ({
        slide: q.closest('section').id,
        options: [...q.querySelectorAll('.quiz-option')].map(o => ({
            right: o.getAttribute('data-correct') === 'true',
            letters: [...o.innerText].filter(c => /[\\p{L}\\p{M}\\p{N}]/u.test(c)).length}))}))""")
    assert quizzes and all(sum(o["right"] for o in q["options"]) == 1 for q in quizzes), quizzes
    tells = []
    for quiz in quizzes:
        right = next(o["letters"] for o in quiz["options"] if o["right"])
        if all(right > o["letters"] for o in quiz["options"] if not o["right"]):
            tells.append(quiz["slide"])
    assert len(tells) <= len(quizzes) // 2, f"the right option is the longest in {len(tells)} of {len(quizzes)} quizzes: {tells}"


@pytest.mark.parametrize("lecture", QUIZZES, ids=str)
def test_quiz_answers_by_click_and_keyboard(browser, rendered, lecture):
    context, page = open_deck(browser, rendered, lecture)
    quizzes = ids_with(page, ".quiz")
    assert quizzes, "the lecture's quizzes reach the deck"
    show(page, quizzes[0])
    quiz = page.locator(".slide.present .quiz")
    explain = quiz.locator(".quiz-explain")
    assert not explain.evaluate("e => e.classList.contains('visible')")
    page.add_style_tag(content="*, *::before, *::after { transition: none !important; }")
    # Where everything sits before anyone answers: nothing may move when feedback or the answer appears.
    boxes = """() => [...document.querySelectorAll('.slide.present .quiz *')].filter(e => !e.closest('.quiz-explain'))
        .map(e => { const r = e.getBoundingClientRect(); return [e.className, Math.round(r.top), Math.round(r.height)]; })"""
    before = page.evaluate(boxes)
    right = quiz.locator(".quiz-option[data-correct='true']")
    wrong = quiz.locator(".quiz-option[data-correct='false']").first
    wrong.click()
    feedback = quiz.locator(".quiz-feedback")
    assert "নয়" in feedback.inner_text() and "ঠিক উত্তর" not in feedback.inner_text()
    assert "wrong" in wrong.get_attribute("class")
    # A wrong vote gives nothing away: no explanation, the right option looks like the others.
    assert not explain.evaluate("e => e.classList.contains('visible')"), "a wrong click revealed the answer"
    assert "right" not in (right.get_attribute("class") or "")
    others = quiz.locator(".quiz-option[data-correct='false']")
    look = "b => getComputedStyle(b).borderColor + getComputedStyle(b).backgroundColor + getComputedStyle(b, '::after').content"
    if others.count() > 1:
        assert right.evaluate(look) == others.nth(1).evaluate(look)
    moved = [(a, b) for a, b in zip(before, page.evaluate(boxes)) if a[1:] != b[1:]]
    assert not moved, f"feedback moved the slide's content: {moved[:3]}"
    # The answer step (→) shows the reason and marks the right option, still without a jump.
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.querySelector('.slide.present .quiz-explain').classList.contains('visible')")
    assert "ঠিক উত্তর" in right.evaluate("b => getComputedStyle(b, '::after').content")
    moved = [(a, b) for a, b in zip(before, page.evaluate(boxes)) if a[1:] != b[1:]]
    assert not moved, f"the answer step moved the slide's content: {moved[:3]}"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / lecture.name).mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / lecture.name / "quiz.png"))

    # Keyboard only: the next quiz (if any), Tab to the right option, Space answers; Enter works as well.
    show(page, quizzes[1 % len(quizzes)])
    page.reload()
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    page.wait_for_function(f"Reveal.getCurrentSlide() && Reveal.getCurrentSlide().id === {quizzes[1 % len(quizzes)]!r}")
    before = page.evaluate("Reveal.getIndices()")
    right = page.locator(".slide.present .quiz-option[data-correct='true']")
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('.slide.present .quiz-option[data-correct=\"true\"]')"):
            break
    else:
        pytest.fail("Tab never reaches the right option")
    page.keyboard.press("Space")
    assert page.evaluate("Reveal.getIndices().h") == before["h"], "Space answered, did not change slide"
    assert "right" in right.get_attribute("class")
    assert "ঠিক!" in page.locator(".slide.present .quiz-feedback").inner_text()
    page.locator(".slide.present .quiz-option[data-correct='false']").first.focus()
    page.keyboard.press("Enter")
    assert "নয়" in page.locator(".slide.present .quiz-feedback").inner_text()
    context.close()


@pytest.mark.parametrize("lecture", QUIZZES, ids=str)
def test_quiz_in_the_speaker_view(browser, rendered, lecture):
    """`S` opens the speaker view; its current-slide preview is the deck itself and answers too."""
    context, page = open_deck(browser, rendered, lecture)
    show(page, ids_with(page, ".quiz")[-1])
    with context.expect_page() as popup:
        page.keyboard.press("s")
    speaker = popup.value
    speaker.wait_for_load_state()
    frame = None
    for _ in range(50):
        frame = next((f for f in speaker.frames if "receiver" in f.url and f.parent_frame is not None), None)
        if frame and frame.evaluate("!!(window.Reveal && Reveal.isReady() && document.querySelector('.slide.present .quiz'))"):
            break
        speaker.wait_for_timeout(200)
    assert frame is not None, "speaker view shows the slide"
    frame.locator(".slide.present .quiz-option[data-correct='true']").first.click()
    assert "ঠিক!" in frame.locator(".slide.present .quiz-feedback").inner_text()
    speaker.wait_for_function("document.documentElement.lang === 'bn'")
    notes = speaker.locator(".speaker-controls-notes").inner_text()
    assert re.search("[\u0980-\u09ff]", notes), "Bengali notes in the speaker view"
    context.close()


@pytest.mark.parametrize("lecture", QUIZZES, ids=str)
def test_quiz_prints_question_then_answer(rendered, lecture):
    """Without the browser script (print, PDF) the quiz is the question and options, and the
    answer with its reason is the next step."""
    html = lecture.product(rendered, "slides.html").read_text(encoding="utf-8")
    quizzes = re.findall(r'<div class="quiz".*?</div></div>', html, re.S)
    assert quizzes
    for quiz in quizzes:
        assert 'class="quiz-explain fragment"' in quiz and "উত্তর:" in quiz


BENGALI_SLIDE = """(sel => Reveal.getSlides().filter(s => s.id && !s.classList.contains('level1') && s.id !== 'title-slide')
    .filter(s => sel.every(q => [...s.querySelectorAll(q)].some(e => /[\u0980-\u09ff]/.test(e.textContent))))
    .map(s => s.id)[0] || null)"""


@every_lecture
def test_bengali_is_drawn_with_the_embedded_font(deck):
    """The font that really draws a Bengali heading is the embedded web font (no .notdef boxes),
    and the same text in a Latin-only font would fall back: its glyphs differ in width."""
    slide = deck.evaluate(BENGALI_SLIDE + "(['h2', 'li'])") or deck.evaluate(BENGALI_SLIDE + "(['h2', 'p'])")
    assert slide, "a content slide with a Bengali heading and Bengali text"
    show(deck, slide)
    cdp = deck.context.new_cdp_session(deck)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    body = ".slide.present li" if deck.evaluate("!!document.querySelector('.slide.present li')") else ".slide.present p"
    for selector in (".slide.present h2", body):
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        # A web font reports its own family name and isCustomFont; a system font would not be custom.
        # Inline code inside the text (`nn.Module` in a bullet) is drawn with the embedded mono font.
        families = {"Noto Sans Bengali"}
        if deck.evaluate(f"!!document.querySelector('{selector} code')"):
            families.add("Noto Sans Mono")
        used = [f for f in fonts if f["glyphCount"]]
        assert used and any(f["familyName"] == "Noto Sans Bengali" for f in used), f"{selector} drawn with {fonts}"
        assert all(f["isCustomFont"] and f["familyName"] in families for f in used), \
            f"{selector} drawn with {fonts}"
    # Code with a Bengali comment when the lecture has one (else any code): the comment falls back to
    # the Bengali web font, not to boxes.
    code_slide = deck.evaluate(BENGALI_SLIDE + "(['pre code.cell-code'])")
    bengali_code = code_slide is not None
    code_slide = code_slide or (ids_with(deck, "pre code.cell-code") or [None])[0]
    assert code_slide, "the deck shows code"
    show(deck, code_slide)
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    code = cdp.send("DOM.querySelector", {"nodeId": root, "selector": ".slide.present pre code.cell-code"})["nodeId"]
    fonts = {f["familyName"]: f for f in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": code})["fonts"]}
    assert fonts.get("Noto Sans Mono", {}).get("isCustomFont"), fonts
    if bengali_code:
        assert fonts.get("Noto Sans Bengali", {}).get("isCustomFont"), fonts
    widths = deck.evaluate("""() => {
      const probe = (family) => { const s = document.createElement('span'); s.textContent = 'বাংলায় শেখা';
        s.style.font = '40px ' + family; s.style.position = 'absolute'; document.body.appendChild(s);
        const w = s.getBoundingClientRect().width; s.remove(); return w; };
      return [probe('"Noto Sans Bengali Web"'), probe('"No Such Font", "Noto Sans Mono Web", monospace')];
    }""")
    assert widths[0] > 0 and abs(widths[0] - widths[1]) > 1


@every_lecture
def test_speaker_notes_on_every_content_slide(deck):
    missing = deck.evaluate("""Reveal.getSlides()
        .filter(s => s.id !== 'title-slide' && !s.classList.contains('level1'))
        .filter(s => !s.querySelector('aside.notes') || !s.querySelector('aside.notes').textContent.trim())
        .map(s => s.id + ' «' + (s.querySelector('h2') || {innerText: ''}).innerText.trim() + '»')""")
    assert missing == [], "content slides without speaker notes:\n" + "\n".join(missing)


@every_lecture
def test_slide_numbers_in_bengali_after_hash_navigation(browser, rendered, lecture):
    context, page = open_deck(browser, rendered, lecture)
    content = content_ids(page)
    show(page, content[2])
    page.wait_for_function(BENGALI_NUMBER)
    number = page.inner_text(".slide-number")
    assert re.search("[০-৯]", number) and not re.search("[0-9]", number), number
    show(page, content[len(content) // 2 + 2])
    page.wait_for_function(f"document.querySelector('.slide-number').innerText !== {number!r} && {BENGALI_NUMBER}")
    again = page.inner_text(".slide-number")
    assert again != number and not re.search("[0-9]", again), again
    here = page.evaluate("Reveal.getIndices()")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("([h, v, f]) => { const i = Reveal.getIndices(); return i.h !== h || i.v !== v || (i.f ?? null) !== f; }",
                           arg=[here["h"], here["v"], here.get("f")])
    page.wait_for_function(BENGALI_NUMBER)
    assert not re.search("[0-9]", page.inner_text(".slide-number"))
    context.close()


@every_lecture
def test_overview_mode(deck):
    deck.evaluate("Reveal.slide(2, 0)")
    deck.locator("body").press("o")
    deck.wait_for_function("Reveal.isOverview()")
    assert deck.evaluate("Reveal.isOverview()")
    deck.keyboard.press("Escape")
    deck.wait_for_function("!Reveal.isOverview()")
    assert not deck.evaluate("Reveal.isOverview()")


def episode_line(meta):
    """The title slide's episode line from the front matter (defaults included), as the deck sets it."""
    parts = [f"পর্ব {meta['episode']:02d}".translate(BN_DIGITS)]
    if meta.get("episodes"):
        parts.append(f"{meta['episodes']}-এর মধ্যে".translate(BN_DIGITS))
    if meta.get("module"):
        parts.append(f"মডিউল {meta['module']}".translate(BN_DIGITS))
    return " · ".join(parts)


@every_lecture
def test_title_slide_and_screenshots(browser, rendered, lecture):
    context, page = open_deck(browser, rendered, lecture)
    page.wait_for_timeout(300)
    title = page.inner_text("#title-slide")
    meta = lecture.meta
    expected = [meta["course"], episode_line(meta), meta["title"]] + ([meta["title-en"][:30]] if meta.get("title-en") else [])
    for text in expected:
        assert text in title, text
    shots = ARTIFACTS / lecture.name
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "title.png"))
    steppers = ids_with(page, ".stepper-slide")
    if steppers:
        show(page, steppers[0])
        page.evaluate("Reveal.navigateFragment(1)")
        page.wait_for_function("Reveal.getIndices().f === 1")
        page.wait_for_timeout(400)  # let the highlight transition finish before the picture
        page.screenshot(path=str(shots / "stepper.png"))
    divider = next(s["id"] for s in slides_of(page) if s["level1"] and s["id"] != "title-slide")
    show(page, divider)
    page.wait_for_timeout(300)  # the slide transition, for the picture
    page.screenshot(path=str(shots / "divider.png"))
    context.close()


def test_print_deck_writes_one_page_per_step_and_a_notes_version(mini):
    """scripts/print-deck on a small deck: decktape with the system Chromium, then the notes print."""
    import shutil
    import subprocess
    from helpers import ROOT
    mini.write("""
        # অংশ {#sec-a}

        ## প্রথম স্লাইড {#sec-b}

        প্রথম কথা।

        . . .

        দ্বিতীয় কথা।

        ::: {.notes}
        বক্তার নোট।
        :::
        """)
    assert mini.render().returncode == 0
    (mini.root / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "print-deck", mini.root / "scripts" / "print-deck")
    (mini.root / ".venv").symlink_to(ROOT / ".venv")
    result = subprocess.run([str(mini.root / "scripts" / "print-deck"), "--notes", "demo"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    out = mini.root / "_output" / "demo"

    def pages(pdf):
        info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
        return int(re.search(r"Pages:\s+(\d+)", info).group(1))

    # title, section divider, the slide before and after its pause
    assert pages(out / "slides.pdf") == 4
    notes = subprocess.run(["pdftotext", "-raw", str(out / "slides-notes.pdf"), "-"],
                           capture_output=True, text=True).stdout
    assert "বক্তার নোট।" in notes


# ---- navigation: → walks everything, the menu jumps to a part -----------------------------------

STATE = "(() => { const i = Reveal.getIndices(); return [i.h, i.v || 0, i.f === undefined ? null : i.f]; })()"
AT_END = "Reveal.isLastSlide() && !Reveal.availableFragments().next"


def every_state(page):
    """Each (h, v, fragment) a presenter must reach: every slide, and each of its fragment steps."""
    wanted = []
    for s in slides_of(page):
        wanted.append((s["h"], s["v"], -1 if s["steps"] else None))
        wanted += [(s["h"], s["v"], f) for f in range(s["steps"])]
    return wanted


def press_right_to_the_end(page, limit):
    seen = [tuple(page.evaluate(STATE))]
    for _ in range(limit):
        if page.evaluate(AT_END):
            break
        page.keyboard.press("ArrowRight")
        seen.append(tuple(page.evaluate(STATE)))
    return seen


@every_lecture
def test_right_arrow_walks_every_slide_and_step_in_order(browser, rendered, lecture):
    """What a presenter does: → from the title slide to the end shows every slide and every
    fragment step, in deck order, one at a time (reveal.js's 'default' mode would jump from part
    divider to part divider)."""
    context, page = open_deck(browser, rendered, lecture)
    try:
        assert page.evaluate("Reveal.getConfig().navigationMode") == "linear"
        wanted = every_state(page)
        seen = press_right_to_the_end(page, 3 * len(wanted))
    finally:
        context.close()
    assert seen == wanted, (f"{len(wanted)} steps in the deck, → showed {len(seen)}; first missed: "
                            f"{[w for w in wanted if w not in seen][:5]}")


@every_lecture
def test_slide_menu_lists_every_slide_under_its_part_and_jumps(browser, rendered, lecture):
    """M opens the menu: every slide by its title, each part's slides indented under it; a click
    goes to that slide. Nothing is fetched for it (the deck's offline test covers requests)."""
    context, page = open_deck(browser, rendered, lecture)
    try:
        page.wait_for_function("!!document.querySelector('.slide-menu-button')")
        page.keyboard.press("m")
        page.wait_for_function("document.querySelector('.slide-menu').getBoundingClientRect().right > 100")
        items = page.evaluate("""[...document.querySelectorAll('.slide-menu-items li')].map(li => ({
            h: +li.getAttribute('data-slide-h'), v: +(li.getAttribute('data-slide-v') || 0),
            nested: li.classList.contains('slide-menu-item-vertical'),
            title: li.querySelector('.slide-menu-item-title').textContent.trim()}))""")
        slides = slides_of(page)
        assert len(items) == len(slides), (len(items), len(slides))
        for item, slide in zip(items, slides):
            assert (item["h"], item["v"]) == (slide["h"], slide["v"])
            title, shown = " ".join(item["title"].split()), " ".join(slide["title"].split())
            assert title and (title in shown or shown.startswith(title[:20])), (item, slide["title"])
            # a part's own slides sit under its divider
            assert item["nested"] == (slide["v"] > 0)
        target = next(s for s in slides if s["v"] > 2)
        page.click(f".slide-menu-items li[data-slide-h='{target['h']}'][data-slide-v='{target['v']}']")
        page.wait_for_function(f"Reveal.getIndices().h === {target['h']} && Reveal.getIndices().v === {target['v']}")
        shots = ARTIFACTS / lecture.name
        shots.mkdir(parents=True, exist_ok=True)
        page.keyboard.press("m")
        page.wait_for_timeout(400)
        page.screenshot(path=str(shots / "menu.png"))
    finally:
        context.close()


def test_navigation_mode_is_set_as_quarto_spells_it(mini, browser):
    """`navigation-mode` in the front matter reaches the deck: Quarto's 'vertical' (reveal.js's
    'default') makes → jump from part to part (the reason the course sets 'linear'), and without it
    the deck is linear."""
    body = """
        # প্রথম অংশ {#sec-one}

        ## ক {#sec-k}

        এক।

        ## খ {#sec-kh}

        দুই।

        # দ্বিতীয় অংশ {#sec-two}

        ## গ {#sec-g}

        তিন।
        """
    for mode, expected in ((None, ["title-slide", "sec-one", "sec-k", "sec-kh", "sec-two", "sec-g"]),
                           ("vertical", ["title-slide", "sec-one", "sec-two"])):
        front = {"title": "নেভিগেশন"} | ({"format": {"revealjs": {"navigation-mode": mode}}} if mode else {})
        mini.write(body, front=front)
        assert mini.render().returncode == 0
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        try:
            page.goto(mini.slides.as_uri())
            page.wait_for_function("window.Reveal && Reveal.isReady()")
            ids = [page.evaluate("Reveal.getCurrentSlide().id")]
            for _ in range(5):
                if page.evaluate("!Reveal.availableRoutes().right"):
                    break
                page.keyboard.press("ArrowRight")
                ids.append(page.evaluate("Reveal.getCurrentSlide().id"))
        finally:
            page.close()
        assert ids == expected, (mode, ids)


@every_lecture
def test_without_javascript_the_deck_is_a_readable_page(browser, rendered, lecture):
    """JavaScript off: every slide one after another, every step shown, nothing overlapping the
    next slide, and a link to the handout, which lies beside the deck."""
    context = browser.new_context(viewport={"width": 1280, "height": 720}, java_script_enabled=False)
    try:
        page = context.new_page()
        deck = lecture.product(rendered, "slides.html")
        page.goto(deck.as_uri())
        link = page.locator(".no-script-notice a")
        assert link.is_visible() and link.get_attribute("href") == "handout.pdf"
        assert (deck.parent / "handout.pdf").exists()
        slides = page.evaluate("""() => [...document.querySelectorAll('.reveal .slides section')]
            .filter(s => !s.querySelector('section'))
            .map(s => { const r = s.getBoundingClientRect(); return [s.id, Math.round(r.top), Math.round(r.bottom)]; })""")
        assert len(slides) >= 40
        hidden = [s for s in slides if s[2] - s[1] < 20]
        assert not hidden, f"slides with no height: {hidden[:5]}"
        overlapping = [(a[0], b[0]) for a, b in zip(slides, slides[1:]) if b[1] < a[2] - 1]
        assert not overlapping, f"slides drawn over each other: {overlapping[:5]}"
        steps = page.evaluate("""[...document.querySelectorAll('.reveal .fragment, .reveal .stepper-step')]
            .filter(f => getComputedStyle(f).visibility === 'hidden' || +getComputedStyle(f).opacity < 1).length""")
        assert steps == 0
        stacked = page.evaluate("""(() => { const s = [...document.querySelectorAll('.stepper-steps')][0];
            if (!s) return true; const r = [...s.children].map(c => c.getBoundingClientRect());
            return r.every((b, i) => i === 0 || b.top >= r[i - 1].bottom - 1); })()""")
        assert stacked, "a stepper's explanations overlap"
        shots = ARTIFACTS / lecture.name
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / "no-javascript.png"))
    finally:
        context.close()


@pytest.mark.parametrize("lecture", STEPPERS, ids=str)
def test_stepper_band_spans_the_code_box(browser, rendered, lecture):
    context, page = open_deck(browser, rendered, lecture)
    try:
        page.add_style_tag(content="*, *::before, *::after { transition: none !important; }")
        show(page, ids_with(page, ".stepper-slide")[0])
        page.evaluate("Reveal.navigateFragment(1)")
        page.wait_for_timeout(200)
        edges = page.evaluate("""(() => {
            const code = [...Reveal.getCurrentSlide().querySelectorAll('code.hljs')].find(c => c.classList.contains('current-fragment'));
            const band = code.querySelector('tr.highlight-line');
            const r = e => { const b = e.getBoundingClientRect(); return [b.left, b.right]; };
            return {code: r(code), band: r(band)}; })()""")
    finally:
        context.close()
    (c0, c1), (b0, b1) = edges["code"], edges["band"]
    assert abs(b0 - c0) <= 1 and abs(b1 - c1) <= 1, f"band {edges['band']} inside code box {edges['code']}"


def test_stepper_output_at_shows_output_from_that_step(mini):
    """`output-at="k"`: the output is there from step k on, even when it is printed later; a step
    number the stepper does not have is an error naming it."""
    stepper = """
        # অংশ {#sec-a}

        ## ধাপে ধাপে {#sec-s}

        ::: {.stepper output-at="%s"}
        ```{python}
        #| label: steps
        #| code-line-numbers: "|1|2|3"
        a = 2
        b = a * 21
        print(b)
        ```

        1. **প্রথম।** a বসে।
        2. **দ্বিতীয়।** b হয় ৪২, যা নিচে ছাপা।
        3. **তৃতীয়।** ছাপা হয়।
        :::
        """
    mini.write(stepper % "2")
    assert mini.render().returncode == 0
    html = mini.slides.read_text(encoding="utf-8")
    output = re.search(r'<div class="fragment stepper-output" data-fragment-index="(\d)"', html)
    assert output and output.group(1) == "2", output
    mini.write(stepper % "5")
    result = mini.render()
    assert result.returncode == 1 and 'output-at="5"' in result.stderr and "1 to 3" in result.stderr, result.stderr
