"""The execution record: what one execution of a lecture produced, as typed records.

The executed notebook carries it in its metadata (`lecture` of the notebook and of each cell): the
execute stage puts it there (execute/notebook.py, `metadata()`), and the check reads it back (`Execution.from_notebook`)
without parsing the sources again or pairing the lecture's blocks with notebook cells by position.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import yaml


@dataclass(frozen=True)
class Environment:
    """What the outputs came from: versions and what the kernel found, the cache key, when."""
    versions: dict = field(default_factory=dict)
    key: str | None = None
    executed_at: int | None = None


@dataclass
class CellRun:
    """One code cell as it ran: where it is, its options, its outputs and what it cost."""
    file: str  # relative to the project
    line: int
    label: str | None
    heading: str
    options: dict
    code: str
    outputs: list = field(default_factory=list)
    execution_count: int | None = None
    seconds: float = 0.0
    raised: bool = False

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def hidden(self) -> bool:
        """Output switched off (output: false / include: false): nothing to check."""
        return self.options.get("output") is False or self.options.get("include") is False

    def metadata(self) -> dict:
        return {"file": self.file, "line": self.line, "label": self.label, "heading": self.heading,
                "options": self.options, "seconds": self.seconds, "raised": self.raised}


@dataclass(frozen=True)
class InlineValue:
    expr: str
    value: str


@dataclass(frozen=True)
class ClaimResult:
    """A claim as it was checked: its sentence, expression and source line, and whether it held."""
    sentence: str
    expr: str
    file: str
    line: int
    ok: bool
    error: Any = None  # the traceback when the expression raised

    def as_dict(self) -> dict:
        return {"sentence": self.sentence, "expr": self.expr, "file": self.file, "line": self.line,
                "ok": self.ok, "error": self.error}


@dataclass
class ProseRun:
    """One prose run: its inline expressions' values and its claims' results."""
    file: str
    line: int
    inline: list[InlineValue] = field(default_factory=list)
    claims: list[ClaimResult] = field(default_factory=list)

    def metadata(self) -> dict:
        return {"file": self.file, "line": self.line,
                "inline": [{"expr": i.expr, "value": i.value} for i in self.inline],
                "claims": [c.as_dict() for c in self.claims]}


@dataclass
class Execution:
    """One lecture's execution: its runs in document order (code cells and prose) and environment."""
    name: str
    environment: Environment
    runs: list[CellRun | ProseRun] = field(default_factory=list)

    @property
    def cells(self) -> list[CellRun]:
        return [r for r in self.runs if isinstance(r, CellRun)]

    @property
    def prose(self) -> list[ProseRun]:
        return [r for r in self.runs if isinstance(r, ProseRun)]

    @property
    def claims(self) -> list[ClaimResult]:
        return [c for p in self.prose for c in p.claims]

    def metadata(self) -> dict:
        """The notebook's own `lecture` metadata (each run's goes on its cell)."""
        env = self.environment
        return {"name": self.name, "versions": env.versions, "key": env.key, "executed_at": env.executed_at}

    @classmethod
    def from_notebook(cls, nb) -> Execution:
        """Read the record back from an executed notebook (the first cell is the front matter)."""
        meta = json.loads(json.dumps(nb.metadata.get("lecture", {})))
        record = cls(meta.get("name", ""), Environment(meta.get("versions") or {}, meta.get("key"),
                                                       meta.get("executed_at")))
        for cell in nb.cells[1:]:
            # Plain dicts and lists: nbformat's NotebookNode is no type YAML (the option lines) knows.
            run = json.loads(json.dumps(cell.metadata.get("lecture", {})))
            if cell.cell_type == "code":
                options = run.get("options", {})
                record.runs.append(CellRun(
                    file=run["file"], line=run["line"], label=run.get("label"), heading=run.get("heading", ""),
                    options=options, code=_code_of(cell.source, options), outputs=list(cell.outputs),
                    execution_count=cell.execution_count, seconds=run.get("seconds", 0.0),
                    raised=bool(run.get("raised"))))
            elif cell.cell_type == "markdown":
                record.runs.append(ProseRun(
                    file=run["file"], line=run["line"],
                    inline=[InlineValue(i["expr"], i["value"]) for i in run.get("inline", [])],
                    claims=[ClaimResult(c["sentence"], c["expr"], c["file"], c["line"], bool(c.get("ok")),
                                        c.get("error")) for c in run.get("claims", [])]))
        return record


def option_lines(options: dict) -> str:
    """The `#|` lines a code cell of the executed notebook starts with (Quarto reads them there)."""
    # `file:` is already resolved into the code; Quarto must not load it a second time.
    kept = {k: v for k, v in options.items() if k != "file"}
    if not kept:
        return ""
    text = yaml.safe_dump(kept, allow_unicode=True, sort_keys=False, default_flow_style=False, width=1000)
    return "".join(f"#| {line}\n" for line in text.splitlines())


def _code_of(source: str, options: dict) -> str:
    """The cell's code without the option lines the notebook put before it."""
    prefix = option_lines(options)
    return source[len(prefix):] if source.startswith(prefix) else source
