"""What the kit runs inside a lecture's kernel (and the small process that is the kernel's parent).

kernel.py sends this file's text to the kernel once, before the first cell, as a module of its own
(`KERNEL_MODULE` in sys.modules, no name in the cells' namespace); each set-up step and probe is
then one call, `__import__('_lecturekit_kernel').fingerprint()`. So the code that runs in the
kernel is the code that the linter and mypy check here. Stdlib only at the top: the kernel may run
another environment's Python, and the nanny runs before any kernel does.
"""
from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from typing import Any

KERNEL_MODULE = "_lecturekit_kernel"


def fingerprint() -> None:
    """Print, as JSON, what the kernel runs on, read once the cells have run: the libraries the
    cells imported decide which kernels did the arithmetic (torch's CPU capability, its BLAS,
    NumPy's BLAS)."""
    import platform
    import re
    found: dict[str, Any] = {"machine": platform.machine()}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            found["cpu"] = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), None)
    except OSError:
        pass
    torch: Any = sys.modules.get("torch")
    if torch is not None:
        found["cpu_capability"] = torch.backends.cpu.get_cpu_capability()
        config = torch.__config__.show()
        blas = re.search(r"BLAS_INFO=(\w+)", config)
        mkl = re.search(r"Math Kernel Library Version ([\w.]+)", config)
        found["torch_blas"] = " ".join(m.group(1) for m in (blas, mkl) if m)
        found["torch_threads"] = torch.get_num_threads()
    numpy: Any = sys.modules.get("numpy")
    if numpy is not None:
        try:
            numpy_blas = numpy.show_config(mode="dicts")["Build Dependencies"]["blas"]
            found["numpy_blas"] = f"{numpy_blas.get('name')} {numpy_blas.get('version')}"
        except Exception:
            pass
        try:  # OpenBLAS picks its kernels per CPU family (SkylakeX, Haswell, Zen …): name them
            import ctypes
            import glob
            import os
            folder = os.path.join(os.path.dirname(numpy.__file__), os.pardir, "numpy.libs")
            lib = ctypes.CDLL(glob.glob(os.path.join(folder, "libscipy_openblas*"))[0])
            corename = lib.scipy_openblas_get_corename64_
            corename.restype = ctypes.c_char_p
            found["numpy_blas_core"] = corename().decode()
        except Exception:
            pass
    print(json.dumps(found), end="")


def setup_plot() -> None:
    """Before the first cell: the course plot style and figure formats (SVG, PDF, plot data). A
    project without the package keeps matplotlib's own defaults (PNG figures)."""
    try:
        courseplot = importlib.import_module("courseplot")
    except ModuleNotFoundError as err:
        if err.name != "courseplot":
            raise
    else:
        courseplot.setup_kernel()


def cell_figsize(width: float | None, height: float | None) -> None:
    """A cell's `fig-width` / `fig-height` (None: the default again)."""
    try:
        importlib.import_module("courseplot").cell_figsize(width, height)
    except ModuleNotFoundError:
        import matplotlib
        matplotlib.rcParams["figure.figsize"] = (width or 6.4, height or 4.8)


def print_each(items: list[Callable[[], object]]) -> None:
    """Several expressions in one request: each one's printed text captured on its own, then all
    of them as one JSON list. The callables are made in the cells' namespace by the caller, so
    names resolve as in the cells."""
    import contextlib
    import io
    printed = []
    for item in items:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            item()
        printed.append(buffer.getvalue())
    print(json.dumps(printed), end="")


def _escaped(value: Any) -> Any:
    """The message with each character UTF-8 cannot encode (a lone surrogate) written as its escape."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_escaped(k): _escaped(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_escaped(v) for v in value]
    return value


def escape_unencodable_messages() -> None:
    """Printed text reaches the render as JSON over ZeroMQ, encoded as UTF-8. A lone surrogate
    (`print("\\ud800")`, text decoded with surrogateescape) cannot be encoded: ipykernel's sender
    fails, the print is lost and its own traceback, with the machine's paths, is printed into the
    cell's output instead. A message that cannot be encoded is sent again with each such character
    written as its escape (`\\ud800`), for every message the kernel sends (prints, displays, errors)."""
    from IPython import get_ipython
    shell: Any = get_ipython()
    senders = (getattr(sys.stdout, "session", None), getattr(sys.stderr, "session", None),
               getattr(shell.display_pub, "session", None), getattr(shell, "kernel", None) and shell.kernel.session)
    sessions = {id(s): s for s in senders if s is not None}
    for session in sessions.values():
        def pack(message: Any, _pack: Callable[[Any], Any] = session.pack) -> Any:
            try:
                return _pack(message)
            except UnicodeEncodeError:
                return _pack(_escaped(message))
        session.pack = pack


def nanny(argv: list[str]) -> None:
    """Start the kernel (argv) as the child of this small process, not of the render: a cell that
    kills its parent (`os.kill(os.getppid(), 9)`) kills this one, the kernel dies with it
    (PR_SET_PDEATHSIG), and the render names the cell instead of vanishing without a word. This
    process dies with the render in turn (a render killed with -9, or stopped before it could shut
    the kernel down, leaves no kernel). Interrupts reach the kernel through its process group
    (jupyter_client signals the group); this process ignores them and passes on the kernel's exit
    status."""
    import ctypes
    import os
    import signal
    import subprocess

    def die_with(parent: int) -> None:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # it was gone already
            os._exit(1)

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with(os.getppid())  # the render
    parent = os.getpid()

    def start_kernel() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        die_with(parent)

    kernel = subprocess.Popen(argv, preexec_fn=start_kernel)
    signal.signal(signal.SIGTERM, lambda signum, frame: kernel.terminate())
    code = kernel.wait()
    sys.exit(code if code >= 0 else 128 - code)
