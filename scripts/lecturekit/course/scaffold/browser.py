"""The live preview as the tests and the benchmark drive it: `scripts/preview` on a free port, the
system's Chromium through Playwright, and a save timed until its words are in the open page.
"""
from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def launch_chromium(playwright: Playwright) -> Browser:
    """The system's Chromium (scripts/setup installs it), headless."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def preview_server(root: Path, *args: str, env: dict[str, str] | None = None,
                   timeout: float = 300) -> Iterator[tuple[int, Path]]:
    """`python -m lecturekit.cli.preview ARGS` in `root` on a free port, its output in
    root/preview.log: (the port, the log) once it answers. Stopped on leaving; when the body fails,
    the log's end is printed first (pytest shows it with the failure)."""
    port = free_port()
    log_path = Path(root) / "preview.log"
    with open(log_path, "w", encoding="utf-8") as log:
        process = subprocess.Popen([sys.executable, "-m", "lecturekit.cli.preview", *args, "--port", str(port)],
                                   cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + timeout

            def waited(what: str) -> None:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the preview server {what}:\n{log_path.read_text(encoding='utf-8')[-3000:]}")
                time.sleep(0.2)
            while "Serving on" not in log_path.read_text(encoding="utf-8"):
                waited("did not start")
            while True:  # livereload says "Serving on" just before it listens
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).close()
                    break
                except OSError:
                    waited("did not answer")
            yield port, log_path
        except BaseException:
            print(log_path.read_text(encoding="utf-8")[-6000:])
            raise
        finally:
            process.terminate()
            process.wait(timeout=30)


def wait_for_text(page: Page, text: str, timeout_ms: float, shown: bool = True) -> None:
    """Until the deck is loaded and ready and holds `text`: on screen (`shown`), else anywhere in
    it, on a slide not shown too (whitespace runs read as one space)."""
    where = "document.body.innerText" if shown else "document.body.textContent.replace(/\\s+/g, ' ')"
    page.wait_for_function(f"() => document.readyState === 'complete' && window.Reveal && Reveal.isReady && "
                           f"Reveal.isReady() && {where}.includes({text!r})", timeout=timeout_ms)


def seconds_to_screen(page: Page, save: Callable[[], object], words: str, *, shown: bool = True,
                      timeout_ms: float = 60_000, pause: float = 1.0) -> float:
    """Seconds from `save()` to `words` in the open page, which the server reloads or splices (no
    reload by hand). First livereload's client is connected, and `pause` passes: an author's pause
    between saves, and a save in another tick of the file-system clock than the last."""
    page.wait_for_function("() => !!window.LiveReload", timeout=60_000)
    time.sleep(pause)
    saved = time.perf_counter()
    save()
    wait_for_text(page, words, timeout_ms, shown=shown)
    return time.perf_counter() - saved
