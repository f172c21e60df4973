"""Structural profiles of a deck and a handout, so the products of `quarto render` and of
scripts/render can be compared element by element (never byte by byte: the two write different HTML
around the same slides)."""
import re
import subprocess
import xml.etree.ElementTree as ET
import zlib
from dataclasses import dataclass, field
from pathlib import Path

LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")
# A URL the deck would fetch: src/href/url() pointing at a remote host (not a plain link in prose).
REMOTE_FETCH = re.compile(r"""(?:\bsrc\s*=\s*["']|<link[^>]+href\s*=\s*["']|@import\s+(?:url\()?["']?|url\(["']?)(https?:)?//""", re.I)

DECK_PROFILE = r"""
() => Reveal.getSlides().map(s => ({
  id: s.id,
  title: (s.querySelector('h1, h2') || {innerText: ''}).innerText.trim().replace(/\s+/g, ' '),
  divider: s.classList.contains('level1') || s.id === 'title-slide',
  notes: s.querySelectorAll('aside.notes').length,
  quiz_options: s.querySelectorAll('.quiz-option').length,
  steps: [...s.querySelectorAll('code[data-line-numbers]')].map(c => c.getAttribute('data-line-numbers')),
  step_notes: s.querySelectorAll('.stepper-step').length,
  callouts: [...s.querySelectorAll('.callout')].map(c => [...c.classList].filter(k => /^callout-/.test(k)).join(' ')),
  figures: [...s.querySelectorAll('figure, .quarto-figure')].filter(f => !f.parentElement.closest('figure, .quarto-figure'))
             .map(f => (f.querySelector('figcaption') || {innerText: ''}).innerText.trim().replace(/\s+/g, ' ')),
  images: [...s.querySelectorAll('img')].map(i => (i.getAttribute('src') || '').split(/[;,]/)[0]),
  answers: s.querySelectorAll('.question .answer').length,
  math: s.querySelectorAll('.katex').length,
}))
"""


@dataclass
class Deck:
    slides: list
    requests: list = field(default_factory=list)
    console: list = field(default_factory=list)
    remote_in_source: list = field(default_factory=list)
    fonts: list = field(default_factory=list)

    def titles(self):
        return [s["title"] for s in self.slides]

    def total(self, key):
        return sum(len(s[key]) if isinstance(s[key], list) else s[key] for s in self.slides)


def deck_profile(browser, path: Path) -> Deck:
    """Load the deck in Chromium (offline as in a classroom) and read every slide's structure."""
    html = path.read_text(encoding="utf-8")
    remote = sorted({html[m.start():m.start() + 80] for m in REMOTE_FETCH.finditer(html)})
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    requests, console = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: console.append((m.type, m.text)) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: console.append(("pageerror", str(e))))
    try:
        page.goto(path.as_uri())
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        page.evaluate("document.fonts.ready.then(() => true)")
        page.wait_for_timeout(300)
        slides = page.evaluate(DECK_PROFILE)
        fonts = page.evaluate("[...document.fonts].filter(f => f.status === 'loaded').map(f => f.family.replace(/\"/g, ''))")
    finally:
        context.close()
    return Deck(slides, [u for u in requests if not u.startswith(LOCAL_SCHEMES)], console, remote,
                sorted(set(fonts)))


@dataclass
class Handout:
    pages: int
    headings: list  # (level, text) in outline order
    text: str
    first_page: str
    fonts: list
    images: int
    alts: list  # every /Alt in the PDF (Typst writes a figure's alt text there)

    def after(self, marker):
        return self.text.split(marker, 1)[1] if marker in self.text else ""


def _outline(element, level, out):
    for child in element:
        if child.tag == "item":
            out.append((level, "".join(child.itertext()).strip()))
        elif child.tag == "outline":
            _outline(child, level + 1, out)


def handout_profile(path: Path) -> Handout:
    run = lambda *cmd: subprocess.run(cmd, capture_output=True, text=True, check=True).stdout  # noqa: E731
    xml = run("pdftohtml", "-xml", "-i", "-stdout", "-q", str(path))
    root = ET.fromstring(re.sub(r"<!DOCTYPE[^>]*>", "", xml))
    headings = []
    top = root.find("outline")
    if top is not None:
        _outline(top, 1, headings)
    pages = int(re.search(r"Pages:\s+(\d+)", run("pdfinfo", str(path)))[1])
    fonts = sorted({line.split()[0].split("+")[-1] for line in run("pdffonts", str(path)).splitlines()[2:]})
    images = len(run("pdfimages", "-list", str(path)).splitlines()[2:])
    return Handout(pages, headings, run("pdftotext", "-raw", str(path), "-"),
                   run("pdftotext", "-raw", "-f", "1", "-l", "1", str(path), "-"), fonts, images,
                   pdf_alt_texts(path))


ALT = re.compile(rb"/Alt\s*(\((?:\\.|[^\\)])*\)|<[0-9A-Fa-f\s]*>)")


def _pdf_string(token: bytes) -> str:
    if token.startswith(b"<"):
        data = bytes.fromhex(re.sub(rb"\s", b"", token[1:-1]).decode())
    else:
        data = re.sub(rb"\\(.)", lambda m: m.group(1), token[1:-1])
    return data[2:].decode("utf-16-be") if data.startswith(b"\xfe\xff") else data.decode("latin-1")


def pdf_alt_texts(path: Path) -> list[str]:
    """The /Alt strings of a PDF, in file order, from its plain and its deflated objects."""
    raw = path.read_bytes()
    chunks = [raw]
    for start in re.finditer(rb"stream\r?\n", raw):
        end = raw.find(b"endstream", start.end())
        try:
            chunks.append(zlib.decompress(raw[start.end():end]))
        except zlib.error:
            pass
    return [_pdf_string(m.group(1)) for chunk in chunks for m in ALT.finditer(chunk)]


# Each slide with every step shown (the last one current), as the deck audit walks them: its
# visible text outside code and notes, its figures' descriptions, its code and output blocks, and
# what runs past the 1280x720 frame (test_slides.STEP_REPORT, the same measure our decks pass).
SLIDE_CONTENT = r"""
() => {
  const slide = Reveal.getCurrentSlide();
  const opacity = el => { let o = 1; for (let e = el; e && e.nodeType === 1; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity); return o; };
  const visible = el => { const cs = getComputedStyle(el); const r = el.getBoundingClientRect();
    return cs.display !== 'none' && cs.visibility !== 'hidden' && r.width > 0 && r.height > 0 && opacity(el) > 0.05; };
  const text = [];
  const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.nodeValue.trim() || el.closest('aside.notes, pre, .katex-mathml, style, script') || !visible(el)) continue;
    text.push(n.nodeValue);
  }
  const blocks = [...slide.querySelectorAll('pre')].filter(p => visible(p) && !p.closest('aside.notes')).map(p => {
    const out = p.closest('.cell-output');
    const kind = out ? ([...out.classList].find(c => /^cell-output-/.test(c)) || 'cell-output') : 'code';
    // Without whitespace: reveal.js's highlight plugin (ours) puts a stepper's lines in table rows.
    return [kind, p.textContent.replace(/\s+/g, '')];
  });
  const alts = [...slide.querySelectorAll('figure img, figure svg')].map(i =>
    (i.getAttribute('alt') || i.getAttribute('aria-label') || '').replace(/\s+/g, ' ').trim());
  return {id: slide.id, text: text.join(' ').replace(/\s+/g, ''), blocks, alts};
}
"""


def slide_contents(browser, path: Path, step_report: str) -> list[dict]:
    """Every slide of the deck at its last step: SLIDE_CONTENT plus what `step_report` (the layout
    audit's script) finds outside the frame or cut off."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        page.goto(path.as_uri())
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        page.evaluate("document.fonts.ready.then(() => true)")
        page.evaluate("""() => { const still = document.createElement('style');
          still.textContent = '*, *::before, *::after { transition: none !important; animation: none !important; }';
          document.head.appendChild(still); }""")
        count = page.evaluate("Reveal.getSlides().length")
        slides = []
        for index in range(count):
            page.evaluate(f"""() => {{ const s = Reveal.getSlides()[{index}]; const at = Reveal.getIndices(s);
              const steps = [...s.querySelectorAll('.fragment')].map(f => +(f.getAttribute('data-fragment-index') || 0));
              Reveal.slide(at.h, at.v, steps.length ? Math.max(...steps) : -1); }}""")
            content = page.evaluate(SLIDE_CONTENT)
            layout = page.evaluate(step_report)
            content["past_the_slide"] = sorted({box["text"] for box in layout["outside"]} |
                                               {box["text"] for box in layout["cut"] if not box["marked"]})
            slides.append(content)
    finally:
        context.close()
    return slides
