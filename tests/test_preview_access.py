"""The preview server answers only its own origin and serves only what the decks load
(course/preview/access.py): requests as a hostile web page would send them, to `scripts/preview`
on a small lecture, with a deck built only when it is opened.

- DNS rebinding: `Host: attacker.example:PORT` gets nothing, not even a deck;
- the project's other files (`.git/config`, `_quarto.yml`, a lecture's source, a path that climbs
  out of `figures/`) are not there, while a browser loads the deck with every resource it asks for;
- a cross-site request (another site's `Origin`, or `Sec-Fetch-Site: cross-site` / `same-site`)
  builds no deck;
- the livereload websocket refuses another site's `Origin`;
- `/forcereload` answers this server's own pages only.
"""
import asyncio
import http.client
from concurrent.futures import ThreadPoolExecutor

import pytest

from test_preview import running

BODY = """\
# অংশ এক {#sec-one}

## প্রথম স্লাইড {#sec-first}

এখানে প্রথম বাক্যটি আছে, আর @fig-line একটি রেখা।

```{python}
#| label: fig-line
#| fig-cap: "একটি রেখা"
import matplotlib.pyplot as plt
plt.plot([1, 2, 3], [3, 1, 2])
plt.show()
```
"""
SECRET = "[core]\n\tsecret = the author's\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`scripts/preview` with no lecture named (a deck is built when it is opened): (project, port, log)."""
    from helpers import MiniProject
    mini = MiniProject(tmp_path_factory.mktemp("access"))
    mini.write(BODY)
    (mini.root / ".git").mkdir()
    (mini.root / ".git" / "config").write_text(SECRET, encoding="utf-8")
    with running(mini) as (port, log):
        yield mini, port, log


def request(port: int, path: str, headers: dict | None = None, host: str | None = None) -> tuple[int, str]:
    """GET `path` with exactly these headers (Host: this server's own unless given)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request("GET", path, headers={"Host": host or f"127.0.0.1:{port}", **(headers or {})})
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        connection.close()


def decks_written(log) -> int:
    return log.read_text(encoding="utf-8").count("deck written")


def test_another_host_gets_nothing(server):
    """DNS rebinding: a page of attacker.example, whose name now resolves to 127.0.0.1, is the
    same origin for the browser; only the Host header tells. Nothing is answered to it."""
    mini, port, log = server
    root = mini.root.resolve().as_posix()
    for host in (f"attacker.example:{port}", "attacker.example", f"127.0.0.1.attacker.example:{port}"):
        for path in (f"{root}/.git/config", f"{root}/_quarto.yml", "/", "/demo/slides.html", "/livereload.js"):
            status, body = request(port, path, host=host)
            assert status == 403 and "secret" not in body, (host, path, status)
    assert decks_written(log) == 0
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
        assert request(port, "/", host=host)[0] == 200, host


def test_a_cross_site_request_builds_no_deck(server):
    """A link, an image or a script of another site: opening a deck builds it (runs its cells)."""
    mini, port, log = server
    before = decks_written(log)
    for headers in ({"Origin": "http://attacker.example"}, {"Origin": "null"},
                    {"Origin": f"http://127.0.0.1:{port + 1}"},
                    {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"},
                    {"Origin": f"http://127.0.0.1:{port}", "Sec-Fetch-Site": "cross-site"}):
        status, _body = request(port, "/demo/slides.html", headers)
        assert status == 403, (headers, status)
    assert decks_written(log) == before, log.read_text(encoding="utf-8")[-2000:]
    # The author's own: an address typed (none) or a page of this server (same-origin).
    assert request(port, "/demo/slides.html", {"Sec-Fetch-Site": "none"})[0] == 302
    assert decks_written(log) == before + 1


def test_only_what_the_decks_load_is_served(server, browser):
    """The project's other files are not there; a browser loads the deck and all it asks for."""
    mini, port, log = server
    root = mini.root.resolve().as_posix()
    for path in (f"{root}/.git/config", f"{root}/_quarto.yml", f"{root}/lectures/demo/index.qmd",
                 f"{root}/figures/%2e%2e/.git/config", f"{root}/figures/..%2f.git/config",
                 f"{root}/_build/cache/", f"{root}/code/minipkg/__init__.py", f"{root}/preview.log",
                 "/../.git/config", f"{root}/_extensions/lecture/lecture.lua"):
        status, body = request(port, path)
        assert status in (400, 404) and "secret" not in body, (path, status)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    failed = []
    page.on("requestfailed", lambda r: failed.append(("failed", r.url)))
    page.on("response", lambda r: r.status >= 400 and failed.append((r.status, r.url)))
    try:
        page.goto(f"http://127.0.0.1:{port}/demo/slides.html")
        page.wait_for_function("() => window.Reveal && Reveal.isReady && Reveal.isReady()", timeout=60_000)
        page.wait_for_function("() => !!window.LiveReload", timeout=30_000)
        loaded = page.evaluate("() => [...document.images].filter(i => i.complete && i.naturalWidth > 0).length")
        fonts = page.evaluate("() => document.fonts.ready.then(() => [...document.fonts].filter(f => f.status === 'loaded').length)")
    finally:
        context.close()
    assert not failed, failed
    assert loaded >= 1 and fonts >= 1, (loaded, fonts)


def test_the_websocket_refuses_another_origin(server):
    """livereload's websocket: a page of another site may not connect (no same-origin rule covers
    websockets); a page of this server may."""
    from tornado.httpclient import HTTPClientError, HTTPRequest
    from tornado.websocket import websocket_connect
    _mini, port, _log = server

    async def connect(origin: str, host: str | None = None) -> str:
        url = f"ws://127.0.0.1:{port}/livereload"
        headers = {"Origin": origin, "Host": host or f"127.0.0.1:{port}"}
        try:
            socket = await websocket_connect(HTTPRequest(url, headers=headers, connect_timeout=30))
        except HTTPClientError as err:
            return str(err.code)
        socket.write_message('{"command": "hello", "protocols": ["http://livereload.com/protocols/official-7"]}')
        answer = await socket.read_message()
        socket.close()
        return "open: " + str(answer)

    def attempt(origin: str, host: str | None = None) -> str:
        # In a thread of its own: the browser fixture's Playwright holds this thread's event loop.
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, connect(origin, host)).result(timeout=60)

    for origin, host in (("http://attacker.example", None), ("null", None),
                         (f"http://attacker.example:{port}", f"attacker.example:{port}")):
        assert attempt(origin, host) == "403", origin
    assert attempt(f"http://localhost:{port}", f"localhost:{port}").startswith("open: "), port


def test_forcereload_answers_its_own_pages_only(server):
    _mini, port, log = server
    for headers in ({}, {"Origin": "http://attacker.example"}, {"Sec-Fetch-Site": "cross-site"},
                    {"Sec-Fetch-Site": "none"}):
        assert request(port, "/forcereload", headers)[0] == 403, headers
    assert request(port, "/forcereload", {"Origin": f"http://attacker.example:{port}"},
                   host=f"attacker.example:{port}")[0] == 403
    assert request(port, "/forcereload", {"Origin": f"http://127.0.0.1:{port}"}) == (200, "ok")
    assert request(port, "/forcereload", {"Sec-Fetch-Site": "same-origin"}) == (200, "ok")
