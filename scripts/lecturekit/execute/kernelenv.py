"""The environment a lecture's kernel runs in, and the part of it that can change an output.

Two kinds of settings:
  FIXED     always set: the terminal (no colours, fixed width), hashing, the plot backend.
  DEFAULTS  numeric settings that make outputs reproducible; a caller who sets one explicitly
            (e.g. `ATEN_CPU_CAPABILITY=default scripts/check`) overrides it.

Threads: the one setting is `OMP_NUM_THREADS=N` (e.g. `OMP_NUM_THREADS=2 scripts/check --fresh`).
torch sizes its thread pool from MKL_NUM_THREADS when that is set, so MKL_NUM_THREADS follows
OMP_NUM_THREADS unless the caller set it too; the thread count torch really used is recorded
(`torch_threads`) and shown in the check's report.

Every variable that can change a printed number (`output_env`) is part of the execution cache key,
so a run under other kernels never answers for a plain one. Stdlib only: the cache key needs it.
"""
import os
from collections.abc import Mapping
from pathlib import Path

FIXED = {
    "PYTHONHASHSEED": "0",
    "NO_COLOR": "1",
    "TERM": "dumb",
    "COLUMNS": "100",
    # Figures a cell shows reach the notebook as displays (courseplot.setup_kernel picks their formats).
    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
}

DEFAULTS = {
    # One thread: a reduction split across threads is summed in another order.
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    # MKL's conditional numerical reproducibility: the same code path (and so the same rounding)
    # on every Intel and AMD x86-64 CPU, instead of one picked per vendor and vector width.
    "MKL_CBWR": "COMPATIBLE",
}

# Prefixes of variables read by torch, MKL, oneDNN, OpenMP, OpenBLAS and NumPy that select kernels,
# threads or precision: any of them can change the last bits of a result.
OUTPUT_PREFIXES = ("ATEN_", "MKL_", "OMP_", "KMP_", "GOMP_", "OPENBLAS_", "GOTO_", "BLIS_", "DNNL_", "ONEDNN_",
                   "TORCH_", "PYTORCH_", "NPY_", "NUMPY_", "CUBLAS_", "CUDA_")
OUTPUT_NAMES = ("PYTHONHASHSEED", "TZ", "LANG", "LC_ALL", "LC_NUMERIC", "COLUMNS")


def kernel_env(base: Mapping[str, str] | None = None, code_dir: Path | str | None = None) -> dict[str, str]:
    """The complete environment for a kernel started from `base` (default: this process's)."""
    base = dict(os.environ if base is None else base)
    env = {**DEFAULTS, **base, **FIXED}
    if "OMP_NUM_THREADS" in base and "MKL_NUM_THREADS" not in base:
        env["MKL_NUM_THREADS"] = base["OMP_NUM_THREADS"]
    if code_dir is not None:
        env["PYTHONPATH"] = code_path(base, code_dir)
    return env


def code_path(base: Mapping[str, str], code_dir: Path | str) -> str:
    """PYTHONPATH with the project's code/ first: the one import root of the course packages, for a
    lecture's kernel and for the commands that run a course package (scripts/modtree)."""
    return os.pathsep.join([str(code_dir)] + ([base["PYTHONPATH"]] if base.get("PYTHONPATH") else []))


def is_output_variable(name: str) -> bool:
    return name.startswith(OUTPUT_PREFIXES) or name in OUTPUT_NAMES


def output_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables of the kernel's environment that can change an output, sorted by name."""
    env = kernel_env(base)
    return {k: env[k] for k in sorted(env) if is_output_variable(k)}
