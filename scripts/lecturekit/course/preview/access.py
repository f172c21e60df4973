"""Whom the preview server answers, and what it serves (the server: course/preview/server.py).

The server runs on the author's machine, bound to a loopback address, inside a project that also
holds `.git/`, `.venv/` and everything else the author can read. A web page the author has open
elsewhere can still reach it: by a link, an image or a form (a cross-site request: opening a deck
builds it, and so runs its cells), by a script after DNS rebinding (a name of the attacker's that
now resolves to 127.0.0.1: the browser counts it as the page's own origin, and sends that name in
`Host`), or by a websocket (which no same-origin rule covers). So every request, the websocket's
included, passes one decision, `refusal()`:

- its `Host` is this server's own: `127.0.0.1`, `localhost` or `[::1]` (or the address it was told
  to bind) with its port (anything else is DNS rebinding, or a proxy nobody set up);
- no `Origin` and no `Sec-Fetch-Site` header says it comes from another origin (a browser sends
  them; a page of this server sends its own origin, or `same-origin`; an address typed or
  bookmarked, `none`); `/forcereload` must say it comes from this server's origin;
- its path is one the decks load (`served()`): the decks and KaTeX under `_build/preview/`,
  reveal.js and the fonts from `node_modules/`, the theme's stylesheets, the lecture's figures, and
  the server's own routes. Everything else of the project is not there (404).
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath
from urllib.parse import unquote

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
# `none`: the user opened the address (typed, bookmarked); `same-origin`: a page of this server.
OWN_FETCH_SITES = {"same-origin", "none"}
# The server's own routes: livereload's client and websocket, its reload command, the deck list.
OWN_ROUTES = {"/livereload", "/livereload.js", "/forcereload", "/"}
FORCE_RELOAD = "/forcereload"

STYLES = {".css"}
SCRIPTS = {".js"}
FONTS = {".woff2", ".woff", ".ttf"}
IMAGES = {".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp"}
# What a preview deck loads, by folder of the project: the kinds of file it takes from there.
DECK_FILES = {
    "_build/preview": {".html"} | STYLES | SCRIPTS | FONTS,  # the decks, the deck list, KaTeX
    "node_modules/reveal.js/dist": STYLES | SCRIPTS | FONTS,
    "node_modules/reveal.js/plugin": STYLES | SCRIPTS | FONTS,
    "node_modules/@fontsource": STYLES | FONTS,
    "node_modules/@fontsource-variable": STYLES | FONTS,
    "_extensions/lecture": STYLES,  # fonts.css, theme.css
    "figures": IMAGES,
}
PREVIEW_FOLDER = "_build/preview"  # what the server serves at its root (`/katex/…`, `/index.html`)


def own_hosts(port: int, bound: str) -> set[str]:
    """The `Host` values of requests meant for this server."""
    names = set(LOOPBACK_NAMES)
    if bound not in ("", "0.0.0.0", "::"):
        names.add(f"[{bound}]" if ":" in bound else bound)
    return {f"{name}:{port}".lower() for name in names}


def refusal(method: str, path: str, headers: Mapping[str, str], port: int, bound: str) -> str | None:
    """Why this request is refused (403), or None."""
    hosts = own_hosts(port, bound)
    host = headers.get("Host", "").lower()
    if host not in hosts:
        return f"Host {host or '(none)'} is not this server's"
    origin = headers.get("Origin")
    from_here = origin is not None and origin.lower() in {f"http://{h}" for h in hosts}
    if origin is not None and not from_here:
        return f"Origin {origin} is another site"
    site = headers.get("Sec-Fetch-Site")
    if site is not None and site.lower() not in OWN_FETCH_SITES:
        return f"Sec-Fetch-Site {site}: a request from another site"
    if path == FORCE_RELOAD and not (from_here or (site or "").lower() == "same-origin"):
        return "/forcereload answers this server's own pages only"
    return None


def served(path: str, project_url: str, lectures: set[str]) -> bool:
    """Whether `path` (the request's, as sent) is something the decks load. `project_url`: the
    project's folder as the deck names it (its absolute path); `lectures`: the lecture names."""
    path = unquote(path)
    if path in OWN_ROUTES:
        return True
    parts = PurePosixPath(path).parts[1:]
    if len(parts) == 2 and parts[0] in lectures and parts[1] == "slides.html":
        return True
    if path.startswith(project_url.rstrip("/") + "/"):
        relative = path[len(project_url.rstrip("/")) + 1:]
    else:
        relative = f"{PREVIEW_FOLDER}/{path.lstrip('/')}"
    names = relative.split("/")
    if any(name in ("", ".", "..") or name.startswith(".") for name in names):
        return False
    suffix = PurePosixPath(relative).suffix.lower()
    return any(relative.startswith(folder + "/") and suffix in kinds for folder, kinds in DECK_FILES.items())
