"""The execute stage: a lecture's sources -> its executed notebook, from the cache when it is valid."""
import time
from dataclasses import dataclass, field

from . import cache, qmd
from .execute import DEFAULT_TIMEOUT, LectureExecutor
from .notebook import executed_notebook, write_notebook


@dataclass
class Execution:
    """What one lecture's execute stage produced and what it cost."""
    lecture: qmd.Lecture
    notebook: object
    from_cache: bool
    seconds: float
    timings: dict = field(default_factory=dict)


def execute_lecture(project, lecture_dir, *, fresh=False, progress=None, python=None, write=True,
                    versions=None, cached_only=False):
    """Read, then execute (or reuse the cached execution), then write the executed notebook.

    `versions`: the environment's versions when the caller already has them (one probe for a course);
    `cached_only`: return None instead of starting a kernel when the cache has no valid entry."""
    started = time.perf_counter()
    lecture = qmd.read_lecture(lecture_dir / "index.qmd")
    versions = versions or cache.environment_versions(python)
    key = cache.execution_key(lecture, project.code_dir, versions)
    store = cache.ExecutionCache(project.build_dir / "cache")
    results = None if fresh else store.load(lecture.name, key)
    from_cache = results is not None
    if results is None and cached_only:
        return None
    if results is None:
        executor = LectureExecutor(lecture, code_dir=project.code_dir,
                                   workdir=project.build_dir / lecture.name / "run",
                                   timeout=project.setting("timeout", DEFAULT_TIMEOUT), python=python,
                                   progress=progress)
        results = executor.run()
        # The record names what the outputs came from: versions, and what the kernel itself found
        # (CPU capability, BLAS, threads, the output-changing environment).
        results["versions"] = {**versions, **results.pop("fingerprint", {})}
        results["executed_at"] = int(time.time())
        store.store(lecture.name, key, results)
    results["key"] = key
    nb = executed_notebook(lecture, results, project.root)
    if write:
        write_notebook(nb, project.notebook_path(lecture.name))
    return Execution(lecture, nb, from_cache, time.perf_counter() - started, results.get("timings", {}))
