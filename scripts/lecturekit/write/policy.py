"""The deck's Content-Security-Policy: it runs only the scripts it was written with.

The deck is one self-contained file: reveal.js, its plugins, KaTeX and the lecture's own behaviour
are inline `<script>` elements, its figures, fonts and stylesheets `data:` URLs. Its policy names
each inline script by its SHA-256 (and the scripts of the speaker view, a document the notes plugin
writes into the window it opens, which inherits the policy), allows no inline event handler and no
`eval`, and loads nothing from the network. Text a plugin turned into markup after all (an escaped
`<img onerror>` put back with innerHTML) runs nothing: its handler has no hash.

Quarto's slide menu has a few tool links with inline `onclick` handlers of its own (fullscreen,
speaker view …); those exact handlers are allowed by their hashes ('unsafe-hashes').

Both renderers write it: scripts/render as the deck's finishing step (write/formats.py), Quarto's
path when post-render puts the deck in place (course/quarto/post_render.py).
"""
from __future__ import annotations

import base64
import hashlib
import html.parser
import re

# A double-quoted JavaScript string holding an HTML document with a script (the notes plugin's
# speaker view, bundled as one string literal).
_DOCUMENT_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*?<script>(?:[^"\\\n]|\\.)*)"')
# Quarto's menu tools: `onclick="RevealMenuToolHandlers.fullscreen(event)"`, inside its JSON options.
_MENU_TOOL_HANDLER = re.compile(r'onclick=\\*"(RevealMenuToolHandlers\.\w+\(event\))\\*"')
_HEAD = re.compile(r"<head(\s[^>]*)?>", re.I)

POLICY = ("default-src 'none'; script-src 'self' {scripts}; style-src 'self' 'unsafe-inline' data:; "
          "img-src 'self' data: blob:; font-src 'self' data:; media-src 'self' data:; frame-src 'self'; "
          "connect-src 'self'; base-uri 'none'; form-action 'none'; object-src 'none'")


class _InlineScripts(html.parser.HTMLParser):
    """The text of every `<script>` without `src` (html.parser reads a script's text whole)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.scripts: list[str] = []
        self._inside: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script" and not any(name == "src" for name, _value in attrs):
            self._inside = []

    def handle_data(self, data: str) -> None:
        if self._inside is not None:
            self._inside.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._inside is not None:
            self.scripts.append("".join(self._inside))
            self._inside = None


def inline_scripts(document: str) -> list[str]:
    parser = _InlineScripts()
    parser.feed(document)
    parser.close()
    return parser.scripts


_JS_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)")
_JS_SINGLE = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def _js_string(literal: str) -> str:
    """A JavaScript string literal's value: `\\n`, `\\xHH`, `\\uHHHH`, `\\u{…}`, and any other
    escaped character as itself (`\\/`, `\\"`, `\\\\`)."""
    def unescape(match: re.Match[str]) -> str:
        escape = match.group(1)
        if escape[0] in "ux" and len(escape) > 1:
            return chr(int(escape[1:].strip("{}"), 16))
        return _JS_SINGLE.get(escape, escape)
    return _JS_ESCAPE.sub(unescape, literal)


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def deck_policy(deck: str) -> str:
    """The policy of one deck: its own inline scripts and those of the documents it writes."""
    scripts = inline_scripts(deck)
    for script in list(scripts):
        for literal in _DOCUMENT_LITERAL.finditer(script):
            scripts += inline_scripts(_js_string(literal.group(1)))
    hashes = sorted({_sha256(script) for script in scripts})
    handlers = sorted({_sha256(handler) for handler in _MENU_TOOL_HANDLER.findall(deck)})
    if handlers:
        hashes = ["'unsafe-hashes'", *handlers, *hashes]
    return POLICY.format(scripts=" ".join(hashes))


def with_policy(deck: str) -> str:
    """The deck with its policy as the first element of its head, before any script runs."""
    head = _HEAD.search(deck)
    if head is None:
        raise ValueError("the deck has no <head>")
    meta = f'\n<meta http-equiv="Content-Security-Policy" content="{deck_policy(deck)}">'
    return deck[:head.end()] + meta + deck[head.end():]
