"""A lecture's deck on a local server that reloads on every save (the command: cli/preview.py).

Also `quarto preview`'s server (`project: preview: serve:` in `_quarto.yml` starts it with
`--quarto`): it then serves the lecture named on Quarto's command line, or every lecture.

The deck is written from the lecture's execution in our cache (a prose edit starts no kernel; a
code edit executes that lecture once, into the same cache `scripts/render` reads), slides only,
into `_build/preview/<lecture>/slides.html`: `_output/` keeps the products of the last render, a
deck and a handout from one execution. livereload serves the preview folder and tells the browser
to reload once the new deck is in place.
"""
from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lecturekit.project import Project
from lecturekit.errors import LectureError

if TYPE_CHECKING:
    from lecturekit.execute.build import ExecutedLecture
    from lecturekit.write.formats import Format
    from lecturekit.write.writers import LectureWriter

PREVIEW = "preview"
# livereload's client, from the server that serves the deck (livereload serves it offline).
RELOAD_SCRIPT = ('<script>(function () { var s = document.createElement("script");'
                 ' s.src = "/livereload.js?port=" + location.port; document.head.appendChild(s); })();</script>')
POLL_MS = 100  # how often the sources are looked at (livereload's own poll is 800 ms)


class PreviewProject(Project):
    """The project, with builds and products of the preview under `_build/preview/`."""

    @property
    def build_dir(self) -> Path:
        return self.root / "_build" / PREVIEW

    @property
    def output_dir(self) -> Path:
        return self.root / "_build" / PREVIEW


def linking_writer(project: Project, execution: ExecutedLecture) -> LectureWriter:
    """The lecture's writer, except that the deck links its resources (reveal.js, fonts, KaTeX,
    figures) where they lie in the project instead of embedding them: pandoc does less, the deck
    is a tenth of the size, and the browser reloads only the page, not every font again."""
    from lecturekit.write.writers import LectureWriter

    class LinkingWriter(LectureWriter):
        def pandoc_args(self, fmt: Format) -> list[str]:
            return [arg for arg in super().pandoc_args(fmt) if arg != "--embed-resources"]

    return LinkingWriter(project, execution)


class PreviewDeck:
    """One lecture's preview deck, rebuilt on demand."""

    def __init__(self, project: Project, lecture_dir: Path, say: Callable[[str], None] = print,
                 quarto: bool = False) -> None:
        from lecturekit.execute import cache
        self.project, self.lecture_dir, self.say, self.quarto = project, lecture_dir, say, quarto
        self.builds = 0  # decks written (the server tells the browser after each)
        self.versions = cache.environment_versions()
        self.preview = PreviewProject(project.root)
        self.path = self.preview.output_dir / lecture_dir.name / "slides.html"
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def build(self) -> bool:
        """Write the deck; on a bad source, say where and keep the last good deck."""
        from lecturekit.execute.build import execute_lecture
        from lecturekit.write.formats import REVEALJS
        started = time.perf_counter()
        if self.quarto:
            self._drop_quartos_touch()
        try:
            execution = execute_lecture(self.project, self.lecture_dir, versions=self.versions, write=False,
                                        progress=lambda line: self.say(line))
            assert execution is not None  # (not cached_only: it executes when the cache has nothing)
            executed = time.perf_counter()
            writer = linking_writer(self.preview, execution)
            writer.write(REVEALJS)
            written = time.perf_counter()
            self._add_reload_script()
        except LectureError as err:
            self.say(f"error: {err}")
            return False
        done = time.perf_counter()
        self.builds += 1
        how = "executed" if not execution.from_cache else "from the cache"
        stages = {"execute": executed - started, **{k.split()[0]: v for k, v in writer.timings.items()},
                  "reload": done - written}
        self.say(f"[{self.lecture_dir.name}] deck written in {done - started:.2f} s ({how}): "
                 + ", ".join(f"{k} {v:.2f} s" for k, v in stages.items()))
        return True

    def _drop_quartos_touch(self) -> None:
        """`quarto preview <lecture>/index.qmd` touches the page it rendered once this server is up,
        but at the source's side (`lectures/<lecture>/index.html`, not under the output folder):
        an empty file that would count as a data file of the lecture (an execution-key input)."""
        touched = self.lecture_dir / "index.html"
        try:
            if touched.stat().st_size == 0:
                touched.unlink()
        except OSError:
            pass

    def _add_reload_script(self) -> None:
        """livereload adds its script to a page only when `</head>` is in the first chunk it sends,
        and a self-contained deck's head is megabytes long: the preview deck carries it itself."""
        html = self.path.read_text(encoding="utf-8")
        html = html.replace("<head>", "<head>\n" + RELOAD_SCRIPT, 1)
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        tmp.write_text(html, encoding="utf-8")
        tmp.replace(self.path)


def lecture_paths(lecture_dir: Path) -> list[str]:
    """What an edit of the lecture itself touches: its section files and settings."""
    return [str(lecture_dir / pattern) for pattern in ("*.qmd", "*.yml")]


def shared_paths(project: Project) -> list[str]:
    """What every lecture's deck depends on: the project's settings, filters and theme, the course code."""
    paths = [str(project.config_path), str(project.extension_dir / "*"), str(project.extension_dir / "filters" / "*")]
    paths += [str(path / "*.py") for path in sorted(project.code_dir.glob("*")) if path.is_dir()]
    return paths


def watched_paths(project: Project, lecture_dir: Path) -> list[str]:
    """The lecture's folder, the project's settings, filters and theme, and the course code."""
    return lecture_paths(lecture_dir) + shared_paths(project)


def write_index(decks: list[PreviewDeck]) -> None:
    """`/`: where Quarto's preview opens the browser. One lecture: its deck; several: a list."""
    folder = decks[0].preview.output_dir
    names = [deck.lecture_dir.name for deck in decks]
    if len(names) == 1:
        body = (f'<meta http-equiv="refresh" content="0; url={names[0]}/slides.html">'
                f'<a href="{names[0]}/slides.html">{names[0]}</a>')
    else:
        body = "<ul>" + "".join(f'<li><a href="{n}/slides.html">{n}</a></li>' for n in names) + "</ul>"
    html = f'<!doctype html><html lang="bn"><meta charset="utf-8"><title>preview</title><body>{body}</body></html>\n'
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "index.html").write_text(html, encoding="utf-8")


def serve(decks: list[PreviewDeck], host: str, port: int, parent: int | None = None) -> None:
    """Serve until Ctrl-C, or until `parent` (the `quarto preview` that started this) is gone."""
    # livereload has no annotations: its classes are Any here.
    from livereload import Server  # type: ignore[import-untyped]
    from livereload.handlers import LiveReloadHandler  # type: ignore[import-untyped]
    from livereload.watcher import Watcher  # type: ignore[import-untyped]
    from tornado import ioloop

    class QuickWatcher(Watcher):  # type: ignore[misc]
        def start(self, callback: Callable[[], None]) -> bool:
            ioloop.PeriodicCallback(callback, POLL_MS).start()
            return True

        def is_file_changed(self, path: str, ignore: Callable[[str], bool] | None = None) -> bool:
            """livereload's, with the size beside the time: an editor's save (truncate, then write)
            can land within one tick of the file-system clock, and the deck would keep what was read
            halfway through it."""
            if not os.path.isfile(path) or self.ignore(path) or (ignore and ignore(path)):
                return False
            stat = os.stat(path)
            state = (stat.st_mtime_ns, stat.st_size)
            known = self._task_mtimes.get(path)
            self._new_mtimes[path] = state
            if known is None:
                self.filepath = path
                return bool(stat.st_mtime > self._start)
            if known != state:
                self.filepath = path
                return True
            return False

    # livereload drops a change that comes within 3 s of the last reload; an author saves more often.
    LiveReloadHandler.DEFAULT_RELOAD_TIME = 0.2
    pending: list[str] = []

    def poll_tasks(cls: Any) -> None:
        """livereload's, except that a rebuilt deck is announced once a browser is there to hear it:
        livereload drops it when the browser is itself reloading (not connected for a moment, after
        the save before) or was reloaded a moment ago, and the screen would keep the older deck.
        Only a build announces (livereload also took a file it saw for the first time for a change)."""
        builds = sum(deck.builds for deck in decks)
        filepath, _delay = cls.watcher.examine()  # runs the builds of what changed
        if sum(deck.builds for deck in decks) != builds:
            pending[:] = [filepath or "*"]
        if pending and cls.waiters and time.time() - cls._last_reload_time >= cls.DEFAULT_RELOAD_TIME:
            cls.watcher.filepath = pending.pop()
            cls.reload_waiters()

    LiveReloadHandler.poll_tasks = classmethod(poll_tasks)
    from tornado import web

    project_root = decks[0].project.root.resolve()

    class ProjectServer(Server):  # type: ignore[misc]
        """The deck links reveal.js, fonts, KaTeX and figures by their paths in the project (pandoc
        writes absolute paths, and paths relative to the deck's own folder): the deck is served at
        its own absolute path, with the project's files beside it (nothing outside the project).
        `/<lecture>/slides.html` leads there."""

        def get_web_handlers(self, script: Any) -> list[Any]:
            import inspect
            here = project_root.as_posix()
            files: dict[str, Any] = {"path": here}
            if "allowed_symlink_directory" in inspect.signature(self.SFH.initialize).parameters:
                # A folder linked into the project (node_modules in a throwaway copy) is served too.
                files["allowed_symlink_directory"] = [here] + [
                    str(link.resolve()) for link in project_root.iterdir() if link.is_symlink() and link.is_dir()]
            return [(re.escape(here) + r"/(.*)", self.SFH, files),
                    (r"/([^/]+)/slides\.html", DeckRedirect),
                    *super().get_web_handlers(script)]

    class DeckRedirect(web.RequestHandler):
        def get(self, lecture: str) -> None:
            deck = decks[0].preview.output_dir.resolve() / lecture / "slides.html"
            if not deck.exists():
                raise web.HTTPError(404)
            self.redirect(deck.as_posix())

    server = ProjectServer(watcher=QuickWatcher())
    for deck in decks:
        for path in lecture_paths(deck.lecture_dir):
            server.watch(path, deck.build)
    def build_all() -> None:
        for deck in decks:
            deck.build()
    for path in shared_paths(decks[0].project):
        server.watch(path, build_all)
    if parent is not None:
        def parent_gone() -> None:
            if os.getppid() != parent:
                os._exit(0)
        ioloop.PeriodicCallback(parent_gone, 1000).start()
    write_index(decks)
    for deck in decks:
        deck.say(f"preview: http://{host}:{port}/{deck.lecture_dir.name}/slides.html")
    decks[0].say("(Ctrl-C stops)")
    try:
        server.serve(host=host, port=port, root=str(decks[0].preview.output_dir), open_url_delay=None,
                     restart_delay=0)
    except OSError as err:
        raise LectureError(f"cannot serve on {host}:{port} ({err.strerror}): choose another with --port",
                           decks[0].lecture_dir) from None
