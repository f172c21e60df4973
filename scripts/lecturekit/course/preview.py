"""`scripts/preview [LECTURE]`: a lecture's deck on a local server that reloads on every save.

The deck is written from the lecture's execution in our cache (a prose edit starts no kernel; a
code edit executes that lecture once, into the same cache `scripts/render` reads), slides only,
into `_build/preview/<lecture>/slides.html`: `_output/` keeps the products of the last render, a
deck and a handout from one execution. livereload serves the preview folder and tells the browser
to reload once the new deck is in place.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from lecturekit.project import Project
from lecturekit.errors import LectureError, run_command

PREVIEW = "preview"
# livereload's client, from the server that serves the deck (livereload serves it offline).
RELOAD_SCRIPT = ('<script>(function () { var s = document.createElement("script");'
                 ' s.src = "/livereload.js?port=" + location.port; document.head.appendChild(s); })();</script>')
POLL_MS = 100  # how often the sources are looked at (livereload's own poll is 800 ms)


class PreviewProject(Project):
    """The project, with builds and products of the preview under `_build/preview/`."""

    @property
    def build_dir(self):
        return self.root / "_build" / PREVIEW

    @property
    def output_dir(self):
        return self.root / "_build" / PREVIEW


class PreviewDeck:
    """One lecture's preview deck, rebuilt on demand."""

    def __init__(self, project: Project, lecture_dir: Path, say=print):
        from lecturekit.execute import cache
        self.project, self.lecture_dir, self.say = project, lecture_dir, say
        self.versions = cache.environment_versions()
        self.preview = PreviewProject(project.root)
        self.path = self.preview.output_dir / lecture_dir.name / "slides.html"
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def build(self) -> bool:
        """Write the deck; on a bad source, say where and keep the last good deck."""
        from lecturekit.execute.build import execute_lecture
        from lecturekit.write.formats import REVEALJS
        from lecturekit.write.writers import LectureWriter
        started = time.perf_counter()
        try:
            execution = execute_lecture(self.project, self.lecture_dir, versions=self.versions, write=False,
                                        progress=lambda line: self.say(line))
            LectureWriter(self.preview, execution).write(REVEALJS)
            self._add_reload_script()
        except LectureError as err:
            self.say(f"error: {err}")
            return False
        how = "executed" if not execution.from_cache else "from the cache"
        self.say(f"[{self.lecture_dir.name}] deck written in {time.perf_counter() - started:.2f} s ({how})")
        return True


    def _add_reload_script(self) -> None:
        """livereload adds its script to a page only when `</head>` is in the first chunk it sends,
        and a self-contained deck's head is megabytes long: the preview deck carries it itself."""
        html = self.path.read_text(encoding="utf-8")
        html = html.replace("<head>", "<head>\n" + RELOAD_SCRIPT, 1)
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        tmp.write_text(html, encoding="utf-8")
        tmp.replace(self.path)


def watched_paths(project: Project, lecture_dir: Path) -> list[str]:
    """The lecture's folder, the project's settings, filters and theme, and the course code."""
    paths = [str(lecture_dir / pattern) for pattern in ("*.qmd", "*.yml")]
    paths += [str(project.config_path), str(project.extension_dir / "*"), str(project.extension_dir / "filters" / "*")]
    paths += [str(path / "*.py") for path in sorted(project.code_dir.glob("*")) if path.is_dir()]
    return paths


def serve(deck: PreviewDeck, watched: list[str], host: str, port: int) -> None:
    from livereload import Server
    from livereload.handlers import LiveReloadHandler
    from livereload.watcher import Watcher
    from tornado import ioloop

    class QuickWatcher(Watcher):
        def start(self, callback):
            ioloop.PeriodicCallback(callback, POLL_MS).start()
            return True

    # livereload drops a change that comes within 3 s of the last reload; an author saves more often.
    LiveReloadHandler.DEFAULT_RELOAD_TIME = 0.2
    server = Server(watcher=QuickWatcher())
    for path in watched:
        server.watch(path, deck.build)
    deck.say(f"preview: http://{host}:{port}/{deck.lecture_dir.name}/slides.html (Ctrl-C stops)")
    try:
        server.serve(host=host, port=port, root=str(deck.preview.output_dir), open_url_delay=None,
                     restart_delay=0)
    except OSError as err:
        raise LectureError(f"cannot serve on {host}:{port} ({err.strerror}): choose another with --port",
                           deck.lecture_dir) from None


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="scripts/preview", description=__doc__.split("\n")[0])
    parser.add_argument("lecture", nargs="?", help="lecture folder name (default: the first lecture)")
    parser.add_argument("--port", type=int, default=4300)
    parser.add_argument("--host", default="127.0.0.1")
    return parser.parse_args(argv)


def preview(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    project = Project.find()
    lectures = project.lectures([args.lecture] if args.lecture else None)
    if not lectures:
        raise LectureError("no lecture to preview (lectures/<name>/index.qmd)", project.lectures_dir)
    say = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    deck = PreviewDeck(project, lectures[0], say)
    if not deck.build() and not deck.path.exists():
        return 1
    serve(deck, watched_paths(project, lectures[0]), args.host, args.port)
    return 0


def main(argv: list[str] | None = None) -> int:
    return run_command(lambda: preview(argv), interrupted="preview stopped")


if __name__ == "__main__":
    sys.exit(main())
