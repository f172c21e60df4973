"""Every lecture's web page (`_output/<lecture>/index.html`) and the course page, as a student gets
them: on a phone (390x844), offline, printed, without JavaScript, with a screen reader's view of
them (axe-core in Chromium), and searched. Each test of a lecture's page runs over every lecture
found under lectures/, from the suite's one render and one browser.

- Form: the header line, titles, contents, parts in order, code with copy buttons that copy no line
  number, real outputs, figures as SVG with alt text and captions, steppers with numbered lines and
  steps, quizzes and exercises whose answers fold (without JavaScript too), the episode's other
  products and its neighbours.
- Phone: no horizontal page scroll, text at least 16 px (code 14), tap targets at least 44x44 px,
  Bengali in the course font, formulas typeset by KaTeX at render time.
- Offline: no request leaves the site (the page and `_output/assets/`); the first paint does not
  wait for the fonts or KaTeX's stylesheet (both held back by seconds here).
- Accessible: one h1, headings in order, landmarks, skip link, lang="bn"; axe-core finds no
  serious or critical violation on any lecture page or the course page.
- Printed: no navigation, the answers at the end; the printed text is the handout's text.
- Search: a Bengali heading, an English word and an API name (state_dict-like) find their section.
- Both paths: `quarto render` writes the same page as scripts/render (a small lecture with every
  construct), and printed output shows as text in both.
"""
import functools
import http.server
import json
import re
import threading
import time
from pathlib import Path

import pytest

from helpers import LECTURES, NO_QUARTO, ROOT, every_lecture, pdf_text
from test_handout import squash, without_page_furniture

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
BN_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")


def page_of(rendered, lecture) -> Path:
    return lecture.product(rendered, "index.html")


def artifacts(lecture) -> Path:
    """tests/artifacts/<lecture>/: screenshots a person looks at (page-390.png, page-1280.png)."""
    folder = ROOT / "tests" / "artifacts" / lecture.name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Loaded:
    """A page opened in Chromium: what it requested and logged while loading, and its page. The
    page's own Content-Security-Policy forbids evaluating strings, which is how Playwright waits for
    a condition: the tests' contexts set it aside (test_the_page_runs_no_script_it_did_not_bring
    keeps it)."""

    def __init__(self, browser, url, viewport=PHONE, **context_args):
        context_args.setdefault("bypass_csp", True)
        self.context = browser.new_context(viewport=viewport, **context_args)
        self.page = self.context.new_page()
        self.requests, self.console = [], []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", lambda m: self.console.append(m.text) if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.console.append(str(e)))
        self.page.goto(url)
        self.page.wait_for_load_state("load")
        self.page.evaluate("document.fonts.ready.then(() => true)")

    def close(self):
        self.context.close()


@pytest.fixture(scope="module")
def phone_pages(browser, rendered):
    """Each lecture's page at 390x844, loaded once when a test first asks for it."""
    opened = {}

    def load(lecture):
        if lecture.name not in opened:
            opened[lecture.name] = Loaded(browser, page_of(rendered, lecture).as_uri())
        return opened[lecture.name]
    yield load
    for loaded in opened.values():
        loaded.close()


# ---- form ------------------------------------------------------------------------------------------------

STRUCTURE = r"""
() => {
  const text = el => el ? el.innerText.replace(/\s+/g, ' ').trim() : null;
  return {
    lang: document.documentElement.lang,
    h1: [...document.querySelectorAll('h1')].map(text),
    headings: [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].filter(h => h.offsetParent !== null)
      .map(h => [+h.tagName[1], h.closest('section') ? h.closest('section').id : '', text(h)]),
    episode: text(document.querySelector('.episode-line')),
    subtitle: text(document.querySelector('h1 .subtitle')),
    titleEn: text(document.querySelector('.title-en')),
    titleEnLang: (document.querySelector('.title-en') || {}).lang,
    landmarks: {banner: document.querySelectorAll('body > header').length, main: document.querySelectorAll('main').length,
      contentinfo: document.querySelectorAll('body > footer').length,
      navs: [...document.querySelectorAll('nav')].map(n => n.getAttribute('aria-label') || text(document.getElementById(n.getAttribute('aria-labelledby'))))},
    skip: (() => { const a = document.querySelector('a'); return a ? [a.className, a.getAttribute('href')] : null; })(),
    toc: [...document.querySelectorAll('.toc a')].map(a => a.getAttribute('href').slice(1)),
    products: [...document.querySelectorAll('.products a')].map(a => a.getAttribute('href')),
    episodes: [...document.querySelectorAll('nav.episodes a')].map(a => [a.rel, a.getAttribute('href')]),
    copyButtons: document.querySelectorAll('main div.sourceCode > button.copy-code').length,
    codeBlocks: document.querySelectorAll('main div.sourceCode').length,
    outputs: document.querySelectorAll('main .cell-output pre').length,
    figures: [...document.querySelectorAll('main figure')].filter(f => !f.closest('.print-only')).map(f => {
      const img = f.querySelector('img');
      const caption = f.querySelector('figcaption');  // (textContent: also inside a closed <details>)
      return {src: img ? img.getAttribute('src').slice(0, 26) : null, alt: img ? img.alt : null,
              caption: caption ? caption.textContent.replace(/\s+/g, ' ').trim() : null}; }),
    steppers: [...document.querySelectorAll('.page-stepper')].map(s => ({
      lines: s.querySelectorAll('pre.numbered code > span').length,
      steps: [...s.querySelectorAll(':scope > ol > li')].map(li => text(li).slice(0, 40)),
      specs: s.getAttribute('data-step-lines')})),
    quizzes: [...document.querySelectorAll('main .quiz')].map(q => q.querySelectorAll('details.quiz-answer').length),
    questions: [...document.querySelectorAll('main .question')].map(q => q.querySelectorAll('details.answer').length),
    printOnlyAnswers: document.querySelectorAll('.print-only.answers').length,
    goals: [...document.querySelectorAll('.lecture-head .goals li')].map(text),
  };
}
"""


def lecture_ids(lecture, level):
    """The ids of the lecture's headings of one level that the handout shows (not slide-only)."""
    text = lecture.text()
    text = re.sub(r'::+ \{\.content-visible when-format="revealjs"\}.*?\n::+\n', "", text, flags=re.S)
    return re.findall(rf"^{'#' * level} .*\{{#([\w-]+)[^}}]*\}}\s*$", text, re.M)


def episode_line(meta):
    parts = [f"পর্ব {str(meta['episode']).zfill(2).translate(BN_DIGITS)}"]
    if meta.get("episodes"):
        parts.append(f"{str(meta['episodes']).translate(BN_DIGITS)}-এর মধ্যে")
    if meta.get("module"):
        parts.append(f"মডিউল {str(meta['module']).translate(BN_DIGITS)}")
    return " · ".join(parts)


@every_lecture
def test_the_page_reads_like_an_episode_page(phone_pages, rendered, rendered_lectures, lecture):
    """Header line, titles in Bangla and English, a skip link, the contents listing every part and
    section, the parts in order, the episode's other products and its neighbours, all linked."""
    loaded = phone_pages(lecture)
    page = page_of(rendered, lecture)
    s = loaded.page.evaluate(STRUCTURE)
    meta = lecture.meta
    assert s["lang"] == "bn"
    assert s["episode"] == episode_line(meta)
    assert len(s["h1"]) == 1 and s["h1"][0].startswith(str(meta["title"])), s["h1"]
    if meta.get("subtitle"):
        assert s["subtitle"] == meta["subtitle"]
    if meta.get("title-en"):
        assert s["titleEn"] == " ".join(str(meta["title-en"]).split()) and s["titleEnLang"] == "en"
    # The learning goals at the top: the list under the heading marked `.goals`, as written there.
    marked = re.search(r"^## .*\{#[\w-]+ \.goals\}\s*\n(.*?)(?=^#)", lecture.text(), re.M | re.S)
    if marked:
        items = re.findall(r"^\d+\. ", marked[1], re.M)
        assert len(s["goals"]) == len(items) >= 3, s["goals"]
    else:
        assert s["goals"] == []
    # The skip link comes first and lands on the main text; landmarks for the page's parts.
    assert s["skip"] == ["skip-link", "#content"]
    assert s["landmarks"]["banner"] == 1 and s["landmarks"]["main"] == 1 and s["landmarks"]["contentinfo"] == 1
    assert len(s["landmarks"]["navs"]) == len(set(s["landmarks"]["navs"])) >= 3, s["landmarks"]  # each named
    # Headings: parts are h2 (after the one h1), sections h3; never a level skipped going down.
    levels = [level for level, _id, _text in s["headings"]]
    assert levels[0] == 1 and all(b <= a + 1 for a, b in zip(levels, levels[1:])), s["headings"]
    parts = lecture_ids(lecture, 1)
    assert [ident for level, ident, _t in s["headings"] if level == 2] == parts
    shown_parts = [t for level, _i, t in s["headings"] if level == 2]
    numbered = [t for t in shown_parts if t.startswith("অংশ")]
    assert [t.split(" ·")[0] for t in numbered] == [f"অংশ {str(n).translate(BN_DIGITS)}" for n in range(len(numbered))]
    # The contents: every part and section of the handout, in order, each a link to its place.
    sections = lecture_ids(lecture, 2)
    assert [i for i in s["toc"] if i in parts] == parts and set(s["toc"]) == set(parts) | set(sections)
    # The other products, the course page and the neighbours: links that resolve.
    assert s["products"][:2] == ["slides.html", "handout.pdf"]
    # A neighbour's page is there when this run rendered it (`scripts/test --lecture` renders one).
    links = s["products"] + [href for _rel, href in s["episodes"]
                             if Path(href).parent.name in {"..", *rendered_lectures}]
    for href in links:
        assert (page.parent / href).is_file(), href
    order = sorted(LECTURES, key=lambda lec: (lec.meta.get("module") or 10**6, lec.meta.get("episode") or 10**6, lec.name))
    at = order.index(lecture)
    expected = ([["prev", f"../{order[at - 1].name}/index.html"]] if at > 0 else []) + [["", "../index.html"]] + \
               ([["next", f"../{order[at + 1].name}/index.html"]] if at + 1 < len(order) else [])
    assert s["episodes"] == expected


@every_lecture
def test_code_outputs_figures_steppers_and_answers(phone_pages, lecture):
    """Every code block has a copy button and the outputs are there; every figure is an SVG with a
    description and a numbered caption; every stepper numbers its lines and explains each step
    with the lines it names; every quiz and exercise has its answer folded, and the printed
    appendix holds them all."""
    s = phone_pages(lecture).page.evaluate(STRUCTURE)
    assert s["codeBlocks"] > 10 and s["copyButtons"] == s["codeBlocks"]
    assert s["outputs"] > 10
    labelled = re.findall(r"#\| label: (fig-[\w-]+)", lecture.text())
    figures = s["figures"]
    assert len(figures) >= len(set(labelled)), figures
    for figure in figures:
        assert figure["src"].startswith("data:image/svg+xml"), figure
        assert figure["alt"] and len(figure["alt"]) > 10, figure
        assert figure["caption"] and figure["caption"].startswith("ছবি "), figure
    steppers = len(re.findall(r"\{\.stepper\b", lecture.text()))
    assert len(s["steppers"]) == steppers
    for stepper in s["steppers"]:
        specs = stepper["specs"].split("|")
        assert len(stepper["steps"]) == len(specs) and stepper["lines"] > 0
        for step, spec in zip(stepper["steps"], specs):
            assert step.startswith(f"(লাইন {spec.translate(BN_DIGITS).replace('-', '–').replace(',', ', ')})"), step
    assert s["quizzes"] == [1] * len(re.findall(r"\{\.quiz\b", lecture.text()))
    assert s["questions"] and s["questions"] == [1] * len(s["questions"])
    assert s["printOnlyAnswers"] == 1


# ---- phone ------------------------------------------------------------------------------------------------

# What a phone shows: anything wider than the screen, text smaller than its minimum, tap targets
# smaller than 44x44 px (links inside a sentence excepted, as WCAG 2.5.5 excepts them).
PHONE_AUDIT = r"""
() => {
  const root = document.documentElement;
  // (checkVisibility: the content of a closed <details> is laid out but not shown.)
  const visible = el => { const r = el.getBoundingClientRect();
    return el.checkVisibility({visibilityProperty: true}) && r.width > 0 && r.height > 0; };
  // Contrast (WCAG): the text's colour against the backgrounds painted behind it, composited.
  const parse = c => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return [0, 0, 0, 0];
    const v = m[1].split(',').map(parseFloat); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const blend = (top, bottom) => [0, 1, 2].map(i => top[i] * top[3] + bottom[i] * (1 - top[3])).concat([1]);
  const lum = c => { const f = x => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const backdrop = el => { const chain = []; for (let e = el; e; e = e.parentElement) chain.unshift(e);
    return chain.reduce((bg, e) => { const c = parse(getComputedStyle(e).backgroundColor); return c[3] > 0 ? blend(c, bg) : bg; }, [255, 255, 255, 1]); };
  const small = [], faint = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.nodeValue.trim() || el.closest('.katex, svg, script, style') || !visible(el)) continue;
    const style = getComputedStyle(el);
    const size = parseFloat(style.fontSize);
    const min = el.closest('pre, code, kbd') ? 14 : 16;
    if (size < min - 0.01) small.push([el.tagName, el.className, size, n.nodeValue.trim().slice(0, 40)]);
    const contrast = ratio(blend(parse(style.color), backdrop(el)), backdrop(el));
    if (contrast < 4.5) faint.push([el.tagName, el.className, Math.round(contrast * 100) / 100, n.nodeValue.trim().slice(0, 30)]);
  }
  const inSentence = el => { const block = el.parentElement.closest('p, li, dd, dt, td, th, figcaption');
    return block && !block.closest('nav') && block.innerText.replace(/\s+/g, '').length > el.innerText.replace(/\s+/g, '').length; };
  const targets = [...document.querySelectorAll('a[href], button, summary, input, select, textarea')]
    .filter(el => visible(el) && !inSentence(el))
    .map(el => { const r = el.getBoundingClientRect(); return [el.tagName, el.innerText.trim().slice(0, 30), Math.round(r.width), Math.round(r.height)]; });
  return {scrollWidth: root.scrollWidth, width: root.clientWidth, small, faint,
          tooSmall: targets.filter(t => t[2] < 44 || t[3] < 44), targets: targets.length,
          wideBoxes: [...document.querySelectorAll('main pre, main .table-box, main figure')].filter(b => visible(b) && b.scrollWidth > b.clientWidth + 1).length,
          unfocusable: [...document.querySelectorAll('main pre, main .table-box, main figure, main .katex-display')]
            .filter(b => visible(b) && b.scrollWidth > b.clientWidth + 1 && b.tabIndex < 0).length};
}
"""


@every_lecture
def test_on_a_phone(phone_pages, lecture):
    """At 390x844, with every answer folded and then every answer open: no horizontal page scroll
    (wide code, outputs, tables and figures scroll in their own box, reachable by keyboard), text
    at least 16 px (code 14 px) and at 4.5:1 against what is behind it (every code token too), tap
    targets at least 44x44 px; Bengali drawn with the course font."""
    page = phone_pages(lecture).page
    for state in ("folded", "open"):
        if state == "open":
            page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        audit = page.evaluate(PHONE_AUDIT)
        assert audit["scrollWidth"] <= audit["width"] == PHONE["width"], (state, audit["scrollWidth"])
        assert not audit["small"], (state, audit["small"][:10])
        assert not audit["faint"], (state, audit["faint"][:10])  # every text (code tokens too) at 4.5:1
        assert audit["targets"] > 20 and not audit["tooSmall"], (state, audit["tooSmall"][:10])
        assert audit["wideBoxes"] > 0 and audit["unfocusable"] == 0, (state, audit)
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = false)")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(artifacts(lecture) / "page-390.png"))
    word = re.findall("[\u0980-\u09ff]+", page.inner_text("main p"))[0]  # the page's first Bengali word
    assert page.evaluate(f"document.fonts.check('17px \"Noto Sans Bengali Web\"', {word!r})")
    loaded = page.evaluate("[...document.fonts].filter(f => f.status === 'loaded').map(f => f.family.replace(/\"/g, ''))")
    assert "Noto Sans Bengali Web" in loaded
    assert page.evaluate("getComputedStyle(document.querySelector('main p')).fontFamily").startswith('"Noto Sans Bengali Web"')


@every_lecture
def test_formulas_are_typeset_at_render_time(phone_pages, rendered, lecture):
    """Every formula of the page is KaTeX's HTML (with MathML for screen readers), made when the
    page was written: the page loads no script to typeset, and KaTeX's fonts draw it."""
    html = page_of(rendered, lecture).read_text(encoding="utf-8")
    formulas = len(re.findall(r"(?<![\\$`])\$(?=\S)[^$\n]+?(?<=\S)\$(?!\d)", "\n".join(
        re.sub(r"```.*?```|`[^`\n]*`", "", p.read_text(encoding="utf-8"), flags=re.S) for p in lecture.sources)))
    page = phone_pages(lecture).page
    shown = page.evaluate("document.querySelectorAll('main .katex').length")
    if formulas == 0:
        assert shown == 0
        return
    assert shown >= 1 and 'class="math inline"' not in html and "katex.min.js" not in html
    assert page.evaluate("document.querySelectorAll('main .katex math annotation').length") == shown
    assert "KaTeX_Main" in page.evaluate("getComputedStyle(document.querySelector('main .katex .mord, main .katex')).fontFamily")


# ---- offline, fast ------------------------------------------------------------------------------------

def inside_site(url, rendered):
    return url.startswith("data:") or url.startswith(rendered.resolve().as_uri() + "/")


@every_lecture
def test_no_request_leaves_the_site(phone_pages, rendered, lecture):
    """Loading the page, and searching from it, fetches only the page and `_output/assets/`; nothing
    is logged as an error (a refused inline script would be, under the page's CSP)."""
    loaded = phone_pages(lecture)
    page = loaded.page
    page.fill("#search-box", "torch")
    page.wait_for_selector(".search-results li a", timeout=15000)
    outside = [u for u in loaded.requests if not inside_site(u, rendered)]
    assert not outside, outside
    assert any(u.endswith("/assets/search-index.js") for u in loaded.requests)
    assert not loaded.console, loaded.console
    page.fill("#search-box", "")


HELD = 4.0  # s


class _Holding(http.server.SimpleHTTPRequestHandler):
    """Serves `_output/`, holding back every font and KaTeX's stylesheet for HELD seconds."""
    held: list = []

    def do_GET(self):
        if re.search(r"(\.woff2|katex\.min\.css)$", self.path):
            self.held.append(self.path)
            time.sleep(HELD)
        super().do_GET()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def holding_server(rendered):
    """`_output/` over HTTP (file:// cannot hold a response back), in a thread per request."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Holding, directory=str(rendered)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@every_lecture
def test_first_paint_does_not_wait_for_fonts_or_katex(browser, holding_server, lecture):
    """With every font and KaTeX's stylesheet held back for 4 s, the page still paints its text at
    once (in a fallback font), and draws with the course font once it arrives."""
    context = browser.new_context(viewport=PHONE, bypass_csp=True)
    page = context.new_page()
    try:
        _Holding.held.clear()
        started = time.monotonic()
        page.goto(f"{holding_server}/{lecture.name}/index.html", wait_until="commit")
        page.wait_for_function("performance.getEntriesByName('first-contentful-paint').length > 0", timeout=HELD * 3000)
        paint = page.evaluate("performance.getEntriesByName('first-contentful-paint')[0].startTime")
        # The page may paint before it even asks for a font: wait for the request being held.
        deadline = time.monotonic() + HELD
        while not _Holding.held and time.monotonic() < deadline:
            time.sleep(0.05)
        print(f"{lecture}: first contentful paint {paint:.0f} ms with the fonts and KaTeX held back {HELD:.0f} s")
        assert _Holding.held and paint < HELD * 1000 - 500, (paint, _Holding.held)
        page.wait_for_function("document.fonts.check('17px \"Noto Sans Bengali Web\"', 'অ')", timeout=HELD * 4000)
        assert time.monotonic() - started >= HELD
    finally:
        context.close()


# ---- accessible ---------------------------------------------------------------------------------------------

def axe_violations(browser, url, viewport=PHONE):
    """axe-core's violations in Chromium (the page as loaded, script included), by impact."""
    loaded = Loaded(browser, url, viewport=viewport)
    try:
        loaded.page.add_script_tag(path=str(AXE))
        found = loaded.page.evaluate("axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => "
                                     "({id: v.id, impact: v.impact, nodes: v.nodes.length, "
                                     "where: v.nodes.slice(0, 3).map(n => n.target.join(' '))})))")
    finally:
        loaded.close()
    return found


@every_lecture
def test_axe_finds_no_serious_violation_on_the_page(browser, rendered, lecture):
    found = axe_violations(browser, page_of(rendered, lecture).as_uri())
    counts = {impact: sum(v["nodes"] for v in found if v["impact"] == impact) for impact in ("minor", "moderate", "serious", "critical")}
    print(f"{lecture}: axe-core violations by impact {counts}")
    assert not [v for v in found if v["impact"] in ("serious", "critical")], found


def test_axe_finds_no_serious_violation_on_the_course_page(browser, rendered):
    found = axe_violations(browser, (rendered / "index.html").as_uri())
    print(f"course page: axe-core violations {[(v['id'], v['impact'], v['nodes']) for v in found]}")
    assert not [v for v in found if v["impact"] in ("serious", "critical")], found


# ---- without JavaScript, printed ----------------------------------------------------------------------

@every_lecture
def test_answers_fold_and_open_without_javascript(browser, rendered, lecture):
    """The browser alone folds every answer: hidden until its summary is pressed, then shown."""
    loaded = Loaded(browser, page_of(rendered, lecture).as_uri(), java_script_enabled=False)
    try:
        page = loaded.page
        answer = page.locator("main details.quiz-answer").first
        inside = answer.locator("p").first
        assert not inside.is_visible()
        answer.locator("summary").click()
        assert inside.is_visible() and inside.inner_text().startswith("উত্তর:")
        assert page.locator("main details.answer").count() == len(re.findall(r"\{\.answer\b", lecture.text()))
        assert page.locator("button.copy-code").count() == 0 and page.locator(".search").is_hidden()
    finally:
        loaded.close()


# The printed page's text blocks: [text, whether it holds a formula].
PRINTED_BLOCKS = r"""
() => [...document.querySelectorAll('main :is(p, li, dt, dd, h1, h2, h3, h4, pre, figcaption, caption, th, td, .callout-title)')]
  .filter(el => el.offsetParent !== null && !el.querySelector('p, li, pre, dt, dd') && !el.closest('.katex'))
  .map(el => [el.innerText, !!el.querySelector('.katex')])
"""


@every_lecture
def test_printed_page_is_the_handouts_text(browser, rendered, lecture):
    """Printed, the page has no navigation and its answers at the end (after its last part); its text
    is the handout's: every block of the page is in the handout, every line of the handout's body is
    on the page (formulas aside: Typst and KaTeX set them differently)."""
    loaded = Loaded(browser, page_of(rendered, lecture).as_uri(), viewport=DESKTOP)
    try:
        page = loaded.page
        page.screenshot(path=str(artifacts(lecture) / "page-1280.png"))
        page.emulate_media(media="print")
        hidden = page.evaluate("['.toc', '.products', 'nav.episodes', '.site-bar', 'details.quiz-answer'].map(s => "
                               "[...document.querySelectorAll(s)].every(e => e.offsetParent === null))")
        assert all(hidden), hidden
        order = page.evaluate("[...document.querySelectorAll('main h2')].filter(h => h.offsetParent !== null).map(h => h.innerText)")
        assert order[-1] == "উত্তরমালা"
        printed = [(squash(text), math) for text, math in page.evaluate(PRINTED_BLOCKS) if squash(text)]
    finally:
        loaded.close()
    handout = without_page_furniture(pdf_text(lecture.product(rendered, "handout.pdf")))
    # The contents: their leaders, or (a long title leaves room for one dot) the page number the
    # handout joins to them with a word joiner.
    body = [line for line in handout.splitlines() if not re.search(r"(\. ){3}|\u2060[0-9০-৯]+$", line)]
    flat = squash("\n".join(body))
    blocks = [text for text, math in printed if not math]
    missing = [b for b in blocks if b not in flat]
    print(f"{lecture}: {len(blocks) - len(missing)}/{len(blocks)} printed blocks of the page (without formulas) in the handout")
    assert not missing, missing[:10]
    math = re.compile("[\U0001d400-\U0001d7ff√∑∏∫⊤]")
    page_text = squash("".join(text for text, _math in printed))
    # The handout's figures are PDF, their labels text: on the page the same figure is an image.
    figures = squash("".join(pdf_text(f) for f in sorted((ROOT / "figures" / lecture.name).glob("*.pdf"))))
    lines = [squash(line) for line in body[1:] if squash(line) not in ("", "সূচিপত্র") and not math.search(line)]
    # A list item's number or bullet is the list's on the page (not text of the item).
    lines = [re.sub(r"^(?:[0-9০-৯]+\.|•)", "", line) for line in lines]
    absent = [line for line in lines if line not in page_text and line not in figures]
    print(f"{lecture}: {len(lines) - len(absent)}/{len(lines)} handout lines on the page")
    assert not absent, absent[:10]


@every_lecture
def test_copy_button_copies_the_code_alone(browser, rendered, lecture):
    """A stepper's copy button copies its code without the line numbers the page shows."""
    loaded = Loaded(browser, page_of(rendered, lecture).as_uri(), viewport=PHONE)
    try:
        page = loaded.page
        loaded.context.grant_permissions(["clipboard-read", "clipboard-write"])
        box = page.locator(".page-stepper div.sourceCode").first
        box.locator("button.copy-code").click()
        page.wait_for_function("document.querySelector('.page-stepper button.copy-code').classList.contains('done')")
        copied = page.evaluate("navigator.clipboard.readText()")
        shown = box.locator("pre").inner_text()
    finally:
        loaded.close()
    notebook = json.loads(lecture.notebook.read_text(encoding="utf-8"))
    sources = ["\n".join(l for l in "".join(c["source"]).split("\n") if not l.startswith("#|")).strip("\n")
               for c in notebook["cells"] if c["cell_type"] == "code"]
    assert copied in sources, copied[:200]
    assert not re.match(r"\s*1\b", copied) and copied.strip() == shown.strip()


# ---- search ------------------------------------------------------------------------------------------------

def search(page, query):
    page.fill("#search-box", query)
    page.wait_for_function(f"document.querySelector('.search-results').dataset.query === {json.dumps(query)}", timeout=15000)
    return page.evaluate("[...document.querySelectorAll('.search-results li a')].map(a => a.getAttribute('href'))")


@every_lecture
def test_search_finds_bengali_english_and_api_names(browser, rendered, lecture):
    """From the course page and from a lecture page: a section's Bengali heading, an English word
    of the lecture's English title and a name with an underscore from its code find their
    section; a word no page has finds nothing."""
    html = page_of(rendered, lecture).read_text(encoding="utf-8")
    sections = re.findall(r'<section id="([\w-]+)" class="level3">\s*<h3>([^<]+)</h3>', html)
    ident, heading = next((i, h) for i, h in sections if len(re.findall("[\u0980-\u09ff]+", h)) >= 2)
    api = re.search(r"<code>([a-z]+_[a-z_]+)", html)[1]
    english = max(re.findall(r"[A-Za-z]{5,}", str(lecture.meta["title-en"])), key=len)
    course = Loaded(browser, (rendered / "index.html").as_uri())
    own = Loaded(browser, page_of(rendered, lecture).as_uri())
    try:
        hits = search(course.page, heading)
        assert f"{lecture.name}/index.html#{ident}" in hits, (heading, hits)
        assert any(h.startswith(f"{lecture.name}/index.html") for h in search(course.page, api)), api
        assert any(h.startswith(f"{lecture.name}/index.html") for h in search(course.page, english.lower())), english
        assert search(course.page, "zqxwvj") == []
        # From the lecture's own page the results lead back into the site.
        for href in search(own.page, api):
            assert (page_of(rendered, lecture).parent / href.split("#")[0]).is_file(), href
    finally:
        course.close()
        own.close()


def test_search_shows_titles_as_the_page_does(tmp_path):
    """A title written in markdown (code, emphasis, printed markup) is found and shown as the page's
    heading shows it, not as its front matter spells it."""
    from lecturekit.course.site.pages import page_documents
    page = tmp_path / "index.html"
    page.write_text('<header><h1 class="title"><code>nn.Module</code> আর <strong>&lt;b&gt;</strong>'
                    '<span class="subtitle">ছোট <em>শিরোনাম</em></span></h1>'
                    '<p class="title-en" lang="en">The <em>Module</em></p></header>'
                    '<main><section id="sec-a" class="level3"><h3>অংশ <code>x</code></h3><p>লেখা</p></section></main>',
                    encoding="utf-8")
    front = {"title": "`nn.Module` আর **<b>**", "subtitle": "ছোট *শিরোনাম*", "title-en": "The *Module*", "episode": 9}
    lecture, section = page_documents(page, "09-demo", front)
    assert (lecture["title"], lecture["text"]) == ("nn.Module আর <b>", "ছোট শিরোনাম The Module")
    assert lecture["where"].endswith("The Module") and section["where"].endswith("nn.Module আর <b>")
    assert section["title"] == "অংশ x"


# ---- the course page -------------------------------------------------------------------------------------

def test_course_page_links_each_page_first_and_fits_a_phone(browser, rendered):
    """Each lecture's line links its page first, then slides, handout and code; at 390 px nothing
    scrolls sideways and every link is a 44 px target."""
    loaded = Loaded(browser, (rendered / "index.html").as_uri())
    try:
        # (A gap between episodes is a line of its own, .unwritten, with no links: site.py.)
        links = loaded.page.evaluate("[...document.querySelectorAll('main li:not(.unwritten)')].map(li => [li.id, "
                                     "[...li.querySelectorAll('.links a')].map(a => a.getAttribute('href'))])")
        audit = loaded.page.evaluate(PHONE_AUDIT)
    finally:
        loaded.close()
    assert [name for name, _hrefs in links] == [lec.name for lec in sorted(LECTURES, key=lambda lec: (lec.meta.get("module") or 10**6, lec.meta.get("episode") or 10**6))]
    for name, hrefs in links:
        assert hrefs[:3] == [f"{name}/index.html", f"{name}/slides.html", f"{name}/handout.pdf"], hrefs
        for href in hrefs:
            assert (rendered / href).is_file(), href
    assert audit["scrollWidth"] <= PHONE["width"] and not audit["small"] and not audit["tooSmall"] and not audit["faint"], audit


# ---- both paths: quarto render writes the same page ------------------------------------------------------

# Every construct the page draws, in a small lecture: a part, a formula, printed markup, a table,
# blocks for the handout only (a callout, a pause and notes inside: the page shows the block, not
# the notes) and for the slides only, a stepper, a figure and a reference to it, a quiz, an
# exercise, a glossary, and an exercise for the handout only whose answer is a figure.
FIXTURE = r"""
# প্রথম অংশ {#sec-first}

## সূত্র আর সারণি {#sec-formula}

একটি রেখা $y = xW^\top + b$, আর একটি [লিংক](https://pytorch.org/docs/)।

```{python}
#| echo: false
import courseplot
courseplot.setup_kernel()
```

```{python}
#| label: printed
print('<script>window.ran = 1</script><img src=x onerror="window.ran = 2">')
```

| নাম | মান |
|---|---|
| `state_dict` | দুই |

:::: {.content-visible when-format="typst"}
শুধু হ্যান্ডআউট আর পাতার বাক্য।

::: {.callout-warning}
হ্যান্ডআউটের সতর্কতা।
:::

. . .

::: {.notes}
লুকানো নোট।
:::
::::

::: {.content-visible when-format="revealjs"}
শুধু স্লাইডের বাক্য।
:::

## ধাপে ধাপে {#sec-steps}

::: {#stp-steps .stepper}
```{python}
#| label: steps
#| code-line-numbers: "|1|2"
total = 1 + 2
print(total)
```

1. **যোগ।** দুটি সংখ্যা যোগ হয়।
2. **ছাপা।** ফল ছাপা হয়।
:::

## ছবি {#sec-figure}

```{python}
#| label: fig-line
#| fig-cap: "একটি সরল রেখা"
#| fig-alt: "বাঁ থেকে ডানে ওঠা একটি সরল রেখা"
import matplotlib.pyplot as plt
plt.plot([0, 1], [0, 1])
plt.show()
```

@fig-line-এ রেখাটি।

# দ্বিতীয় অংশ {#sec-second}

## প্রশ্ন {#sec-quiz}

::: {.quiz}
কোনটি ঠিক?

- [ ] এক
- [x] দুই

::: {.explain}
কারণ দুই।
:::
:::

## অনুশীলনী {#sec-exercise}

::: {.exercise title="যোগ"}
২ + ২ কত?

::: {.answer}
চার।
:::
:::

::: {.glossary}
শব্দ
: তার অর্থ।
:::

::::: {.content-visible when-format="typst"}
## ছবির অনুশীলনী {#sec-exercise-figure}

::: {.exercise}
রেখাটি উল্টো দিকে আঁকুন।

:::: {.answer}
```{python}
#| label: fig-answer
#| fig-cap: "উল্টো রেখা"
plt.plot([0, 1], [1, 0])
plt.show()
```
::::
:::
:::::
"""

PROFILE = r"""
() => {
  const squash = t => (t || '').replace(/\s+/g, '');
  const main = document.querySelector('main');
  return {
    headings: [...document.querySelectorAll('h1, h2, h3, h4')].map(h => [h.tagName, squash(h.textContent)]),
    blocks: [...main.querySelectorAll(':is(p, li, dt, dd, pre, figcaption, caption, th, td, .callout-title, summary)')]
      .filter(el => !el.querySelector('p, li, pre, dt, dd')).map(el => squash(el.textContent)).filter(Boolean),
    figures: [...main.querySelectorAll('figure')].map(f => [(f.querySelector('img') || {}).alt,
      squash((f.querySelector('figcaption') || {}).textContent), ((f.querySelector('img') || {}).src || '').slice(0, 19)]),
    code: [...main.querySelectorAll('pre')].map(p => [p.closest('.cell-output') ? 'output' : 'code', squash(p.textContent)]),
    numbered: main.querySelectorAll('pre.numbered').length,
    details: [...main.querySelectorAll('details')].map(d => d.className),
    printOnly: [...main.querySelectorAll('.print-only')].map(d => squash(d.textContent)),
    toc: [...document.querySelectorAll('.toc a')].map(a => a.getAttribute('href')),
    links: [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href')).filter(h => !/^#cb/.test(h)),
    katex: main.querySelectorAll('.katex').length,
    ran: window.ran === undefined ? null : window.ran,
    header: [...document.querySelectorAll('.episode-line, h1, .title-en, .provenance')].map(e => squash(e.textContent)),
  };
}
"""


def test_quarto_render_writes_the_same_page(project_builder, browser):
    """`quarto render` (Quarto's html format with the lecture filters) and scripts/render write the
    same page for a lecture with every construct the page draws: the same headings, text blocks,
    figures (SVG, described, numbered; the handout-only answer's figure too), code and outputs,
    folded answers, printed appendix, contents, links and formulas. Printed markup is text in both,
    and runs nothing."""
    import test_quarto
    if test_quarto.QUARTO is None:
        pytest.skip(NO_QUARTO)
    from helpers import run_render
    project = test_quarto.small_quarto_project(project_builder, ["01-one"])
    project_builder.copy_code()
    index = project / "lectures" / "01-one" / "index.qmd"
    index.write_text(index.read_text(encoding="utf-8").split("---\n", 2)[0] + "---\n" +
                     index.read_text(encoding="utf-8").split("---\n", 2)[1] + "---\n" + FIXTURE, encoding="utf-8")
    started = time.monotonic()
    theirs = test_quarto.quarto(project)
    log = theirs.stdout + theirs.stderr
    assert theirs.returncode == 0, log[-3000:]
    assert not test_quarto.warnings_in(log), test_quarto.warnings_in(log)
    quarto_seconds = time.monotonic() - started
    page = project / "_output" / "01-one" / "index.html"
    quarto_page = page.with_name("quarto-index.html")
    page.rename(quarto_page)
    started = time.monotonic()
    ours = run_render(project, "--quiet", "--force")
    assert ours.returncode == 0, ours.stderr[-3000:]
    print(f"quarto render {quarto_seconds:.1f} s, scripts/render --force {time.monotonic() - started:.1f} s")
    profiles = []
    for path in (page, quarto_page):
        loaded = Loaded(browser, path.as_uri(), viewport=DESKTOP)
        try:
            profiles.append(loaded.page.evaluate(PROFILE))
            assert not loaded.console, (path.name, loaded.console)
        finally:
            loaded.close()
    mine, other = profiles
    different = {key: (mine[key], other[key]) for key in mine if mine[key] != other[key]}
    assert not different, "\n".join(f"{key}:\n  ours:   {a}\n  Quarto: {b}" for key, (a, b) in different.items())
    # And what the page shows is what the lecture says (a check of the profile itself).
    assert mine["ran"] is None and any('<script>window.ran=1</script>' in text for kind, text in mine["code"])
    assert mine["katex"] == 1 and mine["numbered"] == 1 and mine["details"] == ["quiz-answer", "answer", "answer"]
    assert [alt for alt, _caption, _src in mine["figures"]][:1] == ["বাঁ থেকে ডানে ওঠা একটি সরল রেখা"]
    assert all(src.startswith("data:image/svg+xml") for _alt, _caption, src in mine["figures"])
    assert [caption[:7] for _alt, caption, _src in mine["figures"]] == ["ছবি১.১—", "ছবি১.২—", "ছবি১.২—"]
    blocks = "".join(mine["blocks"])
    assert "শুধুহ্যান্ডআউটআরপাতারবাক্য।" in blocks and "হ্যান্ডআউটেরসতর্কতা।" in blocks
    assert "শুধুস্লাইডেরবাক্য" not in blocks and "লুকানোনোট" not in blocks and ". . ." not in blocks
    assert "সারণি১.১" in blocks and mine["printOnly"][-1].startswith("উত্তরমালা")


def test_printed_markup_and_a_neighbours_title_are_text(project_builder, browser):
    """What a cell prints and what another lecture's title says reach the page as text: the printed
    `<script>` and `onerror` run nothing, and markdown or a script link in the next lecture's
    title is shown as written, not made a link."""
    from lecturekit.course.build import builder as course
    from lecturekit.project import Project
    first = project_builder.add_lecture("01-a", """
        # অংশ {#sec-a}

        ## ছাপা {#sec-printed}

        ```{python}
        #| label: printed
        print('<script>window.ran = 1</script><img src=x onerror="window.ran = 2">')
        ```
        """, front={"title": "প্রথম", "episode": 1})
    title = "দ্বিতীয় *খ* [গ](javascript:window.ran=3) <b>ঘ</b>"
    project_builder.add_lecture("02-b", "# অংশ {#sec-b}\n", front={"title": title, "episode": 2})
    _plans, results = course.build_course(Project(project_builder.root), [first], ["html"], jobs=1, accept=True)
    assert [r.error for r in results] == [None], results
    page = project_builder.output("01-a", "index.html")
    html = page.read_text(encoding="utf-8")
    assert "<script>window.ran" not in html and 'href="javascript:' not in html and "<b>ঘ</b>" not in html
    loaded = Loaded(browser, page.as_uri(), bypass_csp=False)
    try:
        shown = loaded.page.inner_text("main .cell-output pre")
        nav = loaded.page.inner_text("nav.episodes .next")
        ran = loaded.page.evaluate("window.ran === undefined")
    finally:
        loaded.close()
    assert shown == '<script>window.ran = 1</script><img src=x onerror="window.ran = 2">'
    assert title in nav and ran
