"""Structural profiles of a deck and a handout, so the products of `quarto render` and of
scripts/render can be compared element by element (never byte by byte: the two write different HTML
around the same slides)."""
import re
import subprocess
import xml.etree.ElementTree as ET
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
                   run("pdftotext", "-raw", "-f", "1", "-l", "1", str(path), "-"), fonts, images)
