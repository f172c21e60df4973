"""Running Graphviz's dot; the only place that leaves Python."""
from __future__ import annotations

import re
import shutil
import subprocess


class GraphvizNotFoundError(RuntimeError):
    """The `dot` program is not on PATH."""


def run_dot(source: str, fmt: str, *options: str) -> bytes:
    """Render DOT source with `dot -T<fmt>`; returns the bytes dot wrote."""
    program = shutil.which("dot")
    if program is None:
        raise GraphvizNotFoundError(
            "Graphviz's `dot` program was not found on PATH; modtree needs it to draw. "
            "Install it with: sudo apt-get install graphviz"
        )
    done = subprocess.run([program, f"-T{fmt}", *options], input=source.encode("utf-8"),
                          capture_output=True, check=False)
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"dot -T{fmt} failed (exit {done.returncode}): {message}")
    if fmt == "pdf":
        return _fixed_pdf_date(done.stdout)
    return done.stdout


def _fixed_pdf_date(pdf: bytes) -> bytes:
    # cairo stamps the time of rendering; a fixed date of the same length keeps the
    # PDF byte-identical from run to run and its cross-reference offsets valid.
    return re.sub(rb"/CreationDate \(D:\d{14}", b"/CreationDate (D:20000101000000", pdf)
