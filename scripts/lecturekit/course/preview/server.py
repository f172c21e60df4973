"""A lecture's deck on a local server that reloads on every save (the command: cli/preview.py).

Also `quarto preview`'s server (`project: preview: serve:` in `_quarto.yml` starts it with
`--quarto`): it then serves the lecture named on Quarto's command line, or every lecture. A named
lecture is built at start; otherwise each deck is built when it is first opened.

The deck is written from the lecture's execution in our cache (a prose edit starts no kernel; a
code edit executes that lecture once, into the same cache `scripts/render` reads), slides only,
into `_build/preview/<lecture>/slides.html`: `_output/` keeps the products of the last render, a
deck and a handout from one execution. A save that changes one section file's slides rewrites only
those (course/preview/splice.py), and the open page replaces them in place (preview-slides.js); any other
save writes the whole deck, and livereload reloads the page once it is in place.
"""
from __future__ import annotations

import html
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lecturekit.project import Project
from lecturekit.errors import LectureError
from lecturekit.fsutil import write_atomic
from lecturekit.course.quarto.preview_pages import PREVIEW_PAGES, is_preview_page
from lecturekit.course.preview.access import refusal, served
from lecturekit.course.preview.splice import Sections, SplitError, full_deck, sections_of, slides_of

if TYPE_CHECKING:
    from lecturekit.execute.build import ExecutedLecture
    from lecturekit.write.formats import Format
    from lecturekit.write.writers import LectureWriter

PREVIEW = "preview"
FULL = "full"
# livereload's client, from the server that serves the deck (livereload serves it offline).
RELOAD_SCRIPT = ('<script>(function () { var s = document.createElement("script");'
                 ' s.src = "/livereload.js?port=" + location.port; document.head.appendChild(s); })();</script>')
# Slides rewritten in place (a splice) are replaced in the open page by this livereload plugin.
SLIDES_PLUGIN = Path(__file__).with_name("preview-slides.js")
SLIDES_MESSAGE = "lecture-preview-slides:"
POLL_MS = 100  # how often the sources are looked at (livereload's own poll is 800 ms)


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (pandoc): what a build costs on a
    machine whose cores are shared, where wall time says as much about the others."""
    import resource
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


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
                 quarto: bool = False, verify: bool = False) -> None:
        from lecturekit import inputs
        self.project, self.lecture_dir, self.say, self.quarto = project, lecture_dir, say, quarto
        self.builds = 0  # decks written (the server tells the browser after each)
        self.versions = inputs.versions()
        self.preview = PreviewProject(project.root)
        self.path = self.preview.output_dir / lecture_dir.name / "slides.html"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.sections = Sections()
        self.unread: tuple[LectureWriter, float] | None = None  # (the writer of the last full build, when), until its sections are read
        self.opened = False  # built once in this session: a deck nobody opened is never built
        self.verify = verify
        self.last_error: str | None = None
        # What the open page has not been told yet: None, the ids of the slides rewritten in
        # place, or FULL (the whole deck was written: the page reloads).
        self.unannounced: list[str] | str | None = None
        self.written_at = self.fetched_at = self.told_at = 0.0  # the deck's last build; its last GET
        self.told = 0  # announcements of the present build

    def build(self) -> bool:
        """Write the deck (only the slides of the one section a save changed, when that gives the
        same deck: course/preview/splice.py); on a bad source, say where and keep the last good deck."""
        from lecturekit.execute.build import execute_lecture
        from lecturekit.write.formats import REVEALJS
        self.opened = True
        started, cpu = time.perf_counter(), cpu_seconds()
        if self.quarto:
            self._drop_quartos_touch()
        try:
            execution = execute_lecture(self.project, self.lecture_dir, versions=self.versions, write=False,
                                        progress=lambda line: self.say(line))
            assert execution is not None  # (not cached_only: it executes when the cache has nothing)
            executed = time.perf_counter()
            writer = linking_writer(self.preview, execution)
            sections = sections_of(writer)
            if self.unread is not None:
                # A save before the server's idle moment came: the last full deck's sections are
                # read now, so this save still rewrites only its own slides.
                self.read_sections()
            emitted = time.perf_counter()
            why, file = self.sections.splice(writer, sections, self.path) if self.path.exists() \
                else ("no deck yet", "")
            stages = {"execute": executed - started, "emit": emitted - executed}
            if why is None:
                stages["splice"] = time.perf_counter() - emitted
                what = f"the slides of {Path(file).name} only" if file else "no slide changed"
                if self.unannounced != FULL:
                    self.unannounced = [*(self.unannounced or []), *self.sections.spliced]
            else:
                writer.write(REVEALJS)
                written = time.perf_counter()
                self._add_reload_script()
                self.sections.written_whole(sections, writer.pandoc_args(REVEALJS))
                self.unread = (writer, time.time())
                self.unannounced = FULL
                stages.update({k.split()[0]: v for k, v in writer.timings.items() if not k.startswith("emit")})
                stages["reload"] = time.perf_counter() - written
                what = f"every slide: {why}"
        except LectureError as err:
            self.say(f"error: {err}")
            self.last_error = str(err)
            return False
        self.last_error = None
        self.written_at, self.told = time.time(), 0
        done = time.perf_counter()
        self.builds += 1
        how = "executed" if not execution.from_cache else "from the cache"
        stages["cpu"] = cpu_seconds() - cpu
        self.say(f"[{self.lecture_dir.name}] deck written in {done - started:.2f} s ({how}): "
                 + ", ".join(f"{k} {v:.2f} s" for k, v in stages.items()) + f"; {what}")
        if why is None and file and self.verify:
            self._verify(writer)
        return True

    def read_sections(self) -> None:
        """After a full build, when nothing else is waiting: each section's syntax tree, which the
        next save's splice starts from."""
        if self.unread is None:
            return
        writer, _when = self.unread
        self.unread = None
        started = time.perf_counter()
        try:
            self.sections.read(writer)
        except SplitError as err:
            self.say(f"[{self.lecture_dir.name}] sections not read ({err}): every save writes the whole deck")
            return
        self.say(f"[{self.lecture_dir.name}] sections read in {time.perf_counter() - started:.2f} s")

    def _verify(self, writer: LectureWriter) -> None:
        """`--verify`: the spliced deck's slides against a full render's, slide by slide; a
        difference is said, and the full render's deck served."""
        full = full_deck(writer)
        served = self.path.read_text(encoding="utf-8")
        ours, theirs = slides_of(served), slides_of(full)
        differing = [i + 1 for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
        if len(ours) == len(theirs) and not differing:
            self.say(f"[{self.lecture_dir.name}] verified: {len(ours)} slides as a full render writes them")
            return
        self.say(f"[{self.lecture_dir.name}] error: the spliced deck differs from a full render "
                 f"(slides {differing[:5]}, {len(ours)} against {len(theirs)}): the full deck is served")
        self.path.write_text(full, encoding="utf-8")
        self._add_reload_script()
        self.sections.trees = None
        self.unannounced, self.written_at, self.told = FULL, time.time(), 0

    def announcement(self) -> str | None:
        """What livereload tells the open pages now: reload, replace these slides, or nothing.
        Said again (up to five times, 1.5 s apart) until a page has fetched the deck since it was
        written: a page that was itself reloading when told (its old connection still counted
        among livereload's) would otherwise keep the deck it fetched before."""
        if self.unannounced is None:
            return None
        now = time.time()
        if self.fetched_at > self.written_at or self.told >= 5:
            self.unannounced, self.told = None, 0
            return None
        if self.told and now - self.told_at < 1.5:
            return None
        self.told, self.told_at = self.told + 1, now
        if self.unannounced == FULL or not self.unannounced:
            return "*"
        return (f"{SLIDES_MESSAGE}{self.builds}:{self.path.resolve().as_posix()}:"
                f"{' '.join(dict.fromkeys(self.unannounced))}")

    def _drop_quartos_touch(self) -> None:
        """`quarto preview <lecture>/index.qmd` leaves the pages it rendered beside the source
        (`lectures/<lecture>/page.html` for the web page, _quarto.yml's first format, or `index.html`:
        post-render's stand-in page, then Quarto's touch once this server is up), files that would
        count as data files of the lecture (execution-key inputs)."""
        for name in PREVIEW_PAGES:
            touched = self.lecture_dir / name
            if is_preview_page(touched):
                touched.unlink(missing_ok=True)

    def _add_reload_script(self) -> None:
        """livereload adds its script to a page only when `</head>` is in the first chunk it sends,
        and a self-contained deck's head is megabytes long: the preview deck carries it itself."""
        html = self.path.read_text(encoding="utf-8")
        plugin = "<script>\n" + SLIDES_PLUGIN.read_text(encoding="utf-8") + "</script>\n"
        html = html.replace("<head>", "<head>\n" + plugin + RELOAD_SCRIPT, 1)
        write_atomic(self.path, html.encode("utf-8"))


def full_slides(project: Project, lecture_dir: Path) -> list[str]:
    """The lecture's slides as a full build writes them from today's sources, nothing written
    but the markdown: what a served deck is compared with (tests, scripts/bench)."""
    from lecturekit.execute.build import execute_lecture
    deck = PreviewDeck(project, lecture_dir, say=lambda line: None)
    execution = execute_lecture(project, lecture_dir, versions=deck.versions)
    assert execution is not None  # (not cached_only)
    return slides_of(full_deck(linking_writer(deck.preview, execution)))


def served_slides(project: Project, lecture_dir: Path) -> list[str]:
    """The slides of the deck the server serves now."""
    return slides_of(PreviewProject(project.root).output_dir.joinpath(lecture_dir.name, "slides.html")
                     .read_text(encoding="utf-8"))


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
    from livereload.handlers import ForceReloadHandler, LiveReloadHandler, LiveReloadJSHandler  # type: ignore[import-untyped]
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

    def poll_tasks(cls: Any) -> None:
        """livereload's, except that a rebuilt deck is announced once a browser is there to hear it:
        livereload drops it when the browser is itself reloading (not connected for a moment, after
        the save before) or was reloaded a moment ago, and the screen would keep the older deck.
        Only a build announces (livereload also took a file it saw for the first time for a change);
        slides rewritten in place are named, for the page to replace them without reloading."""
        cls.watcher.examine()  # runs the builds of what changed
        if cls.waiters and time.time() - cls._last_reload_time >= cls.DEFAULT_RELOAD_TIME:
            told = [message for deck in decks if (message := deck.announcement())]
            if told:
                cls.watcher.filepath = told[0] if len(told) == 1 else "*"
                cls.reload_waiters()

    LiveReloadHandler.poll_tasks = classmethod(poll_tasks)
    from tornado import web

    project_root = decks[0].project.root.resolve()

    class Refused(web.RequestHandler):
        """A request another site made, or a path no deck loads (course/preview/access.py)."""

        def initialize(self, status: int, reason: str) -> None:
            self.refused_status, self.refused_reason = status, reason

        def prepare(self) -> None:
            status, reason = self.refused_status, self.refused_reason
            if self.request.path != "/favicon.ico":  # asked by every browser, loaded by no deck
                decks[0].say(f"refused ({status}): {self.request.method} {self.request.path}: {reason}")
            self.set_status(status)
            self.finish(f"{status}: {reason}\n")

    class GuardedApplication(web.Application):
        """Every request, the websocket's included, is first judged by preview_access: this
        server's own Host, no other site's Origin or Sec-Fetch-Site, a path the decks load."""

        def find_handler(self, request: Any, **kwargs: Any) -> Any:
            headers = request.headers
            why = refusal(request.method or "", request.path, headers, port, host)
            status = 403
            if why is None and not served(request.path, project_root.as_posix(), set(by_name)):
                why, status = "not a file the decks load", 404
            if why is not None:
                return self.get_handler_delegate(request, Refused, {"status": status, "reason": why})
            return super().find_handler(request, **kwargs)

    class ProjectServer(Server):  # type: ignore[misc]
        """The deck links reveal.js, fonts, KaTeX and figures by their paths in the project (pandoc
        writes absolute paths, and paths relative to the deck's own folder): the deck is served at
        its own absolute path, with the files it loads beside it (preview_access.DECK_FILES).
        `/<lecture>/slides.html` leads there."""

        def application(self, port: int, host: str, liveport: Any = None, debug: Any = None,
                        live_css: bool = True) -> None:
            """livereload's, on one port, through GuardedApplication (livereload's own answers any
            Host and Origin); no script injected into pages: the preview deck carries its own."""
            LiveReloadHandler.watcher = self.watcher
            LiveReloadHandler.live_css = live_css
            handlers = [(r"/livereload", LiveReloadHandler), (r"/forcereload", ForceReloadHandler),
                        (r"/livereload\.js", LiveReloadJSHandler), *self.get_web_handlers(None)]
            GuardedApplication(handlers=handlers).listen(port, address=host)

        def get_web_handlers(self, script: Any) -> list[Any]:
            import inspect
            here = project_root.as_posix()
            files: dict[str, Any] = {"path": here}
            if "allowed_symlink_directory" in inspect.signature(self.SFH.initialize).parameters:
                # A folder linked into the project (node_modules in a throwaway copy) is served too.
                files["allowed_symlink_directory"] = [here] + [
                    str(link.resolve()) for link in project_root.iterdir() if link.is_symlink() and link.is_dir()]
            decks_at = {deck.path.resolve().as_posix(): deck for deck in decks}

            static_files: Any = self.SFH

            class DeckFiles(static_files):  # type: ignore[misc]
                """The project's files; a deck nobody opened yet in this session (a browser left on
                it from the last one) is built before it is sent."""

                def get(self, path: str, include_body: bool = True) -> Any:
                    deck = decks_at.get(f"{here}/{path}")
                    if deck is not None:
                        if not deck.opened:
                            deck.build()
                        deck.fetched_at = time.time()
                    return super().get(path, include_body)

            return [(re.escape(here) + r"/(.*)", DeckFiles, files),
                    (r"/([^/]+)/slides\.html", DeckRedirect),
                    *super().get_web_handlers(script)]

    by_name = {deck.lecture_dir.name: deck for deck in decks}

    class DeckRedirect(web.RequestHandler):
        """`/<lecture>/slides.html`: the deck, built when it is opened first (a course of 91
        lectures starts at once and builds only what is looked at)."""

        def get(self, lecture: str) -> None:
            deck = by_name.get(lecture)
            if deck is None:
                raise web.HTTPError(404)
            if not deck.opened:
                deck.build()
            if not deck.path.exists():
                self.set_status(500)
                self.finish(f"<!doctype html><meta charset=utf-8><pre>{html.escape(deck.last_error or '')}</pre>")
                return
            self.redirect(deck.path.resolve().as_posix())

    server = ProjectServer(watcher=QuickWatcher())

    def rebuild(deck: PreviewDeck) -> Callable[[], object]:
        return lambda: deck.build() if deck.opened else None

    for deck in decks:
        for path in lecture_paths(deck.lecture_dir):
            server.watch(path, rebuild(deck))

    def build_all() -> None:
        for deck in decks:
            if deck.opened:
                deck.build()
    for path in shared_paths(decks[0].project):
        server.watch(path, build_all)

    def read_sections() -> None:
        """Once a full build's reload is announced, read that deck's sections for the next save."""
        for deck in decks:
            if deck.unread is not None and time.time() - deck.unread[1] > (3 if any(d.unannounced for d in decks) else 0.3):
                deck.read_sections()
                return
    ioloop.PeriodicCallback(read_sections, 250).start()
    if parent is not None:
        def parent_gone() -> None:
            if os.getppid() != parent:
                os._exit(0)
        ioloop.PeriodicCallback(parent_gone, 1000).start()
    write_index(decks)
    if len(decks) == 1:
        decks[0].say(f"preview: http://{host}:{port}/{decks[0].lecture_dir.name}/slides.html")
    else:
        decks[0].say(f"preview: http://{host}:{port}/ ({len(decks)} lectures; a deck is built when it is opened)")
    decks[0].say("(Ctrl-C stops)")
    try:
        server.serve(host=host, port=port, root=str(decks[0].preview.output_dir), open_url_delay=None,
                     restart_delay=0)
    except OSError as err:
        raise LectureError(f"cannot serve on {host}:{port} ({err.strerror}): choose another with --port",
                           decks[0].lecture_dir) from None

