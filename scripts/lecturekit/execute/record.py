"""The execution record: what one execution of a lecture produced, as typed records.

The kernel returns it (execute/kernel.py), the cache stores its `to_json()` and gives it back with
`from_json()`, which reads only a record that fits schemas/execution.yaml (the one decision on a
stored record's shape: a cache entry may be damaged or come from another machine), and the executed notebook carries it in
its metadata (`lecture` of the notebook and of each cell): the execute stage puts it there
(execute/notebook.py, `metadata()`), and the check reads it back (`Execution.from_notebook`) without
parsing the sources again or pairing the lecture's blocks with notebook cells by position.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

# JSON data: a mapping of names to values.
JSON = dict[str, Any]

import yaml

from lecturekit import schema


class RecordShapeError(ValueError):
    """A stored record (a cache entry) that is not the shape `to_json` writes."""


@dataclass(frozen=True)
class Environment:
    """What the outputs came from: versions and what the kernel found, the cache key, when."""
    versions: JSON = field(default_factory=dict)
    key: str | None = None
    executed_at: int | None = None

    def to_json(self) -> JSON:
        return {"versions": self.versions, "key": self.key, "executed_at": self.executed_at}

    @classmethod
    def from_json(cls, data: JSON) -> Environment:
        return cls(data["versions"], data["key"], data["executed_at"])


@dataclass
class CellRun:
    """One code cell as it ran: where it is, its options, its outputs and what it cost."""
    file: str  # relative to the project
    line: int
    label: str | None
    heading: str
    options: JSON
    code: str
    outputs: list[JSON] = field(default_factory=list)
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

    def metadata(self) -> JSON:
        return {"file": self.file, "line": self.line, "label": self.label, "heading": self.heading,
                "options": self.options, "seconds": self.seconds, "raised": self.raised}

    def to_json(self) -> JSON:
        return {"kind": "cell", **self.metadata(), "code": self.code, "outputs": self.outputs,
                "execution_count": self.execution_count}

    @classmethod
    def from_json(cls, data: JSON) -> CellRun:
        return cls(data["file"], data["line"], data["label"], data["heading"], data["options"],
                   data["code"], data["outputs"], data["execution_count"], data["seconds"], data["raised"])


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

    def as_dict(self) -> JSON:
        return {"sentence": self.sentence, "expr": self.expr, "file": self.file, "line": self.line,
                "ok": self.ok, "error": self.error}

    @classmethod
    def from_json(cls, data: JSON) -> ClaimResult:
        return cls(data["sentence"], data["expr"], data["file"], data["line"], data["ok"], data["error"])


@dataclass
class ProseRun:
    """One prose run: its inline expressions' values and its claims' results."""
    file: str
    line: int
    inline: list[InlineValue] = field(default_factory=list)
    claims: list[ClaimResult] = field(default_factory=list)

    def metadata(self) -> JSON:
        return {"file": self.file, "line": self.line,
                "inline": [{"expr": i.expr, "value": i.value} for i in self.inline],
                "claims": [c.as_dict() for c in self.claims]}

    def to_json(self) -> JSON:
        return {"kind": "prose", **self.metadata()}

    @classmethod
    def from_json(cls, data: JSON) -> ProseRun:
        return cls(data["file"], data["line"], [InlineValue(i["expr"], i["value"]) for i in data["inline"]],
                   [ClaimResult.from_json(c) for c in data["claims"]])


@dataclass(frozen=True)
class Execution:
    """One lecture's execution: its runs in document order (code cells and prose), its environment
    and what it cost (`timings`: kernel start, each cell, the inline expressions)."""
    name: str
    environment: Environment
    runs: list[CellRun | ProseRun] = field(default_factory=list)
    timings: JSON = field(default_factory=dict)

    @property
    def cells(self) -> list[CellRun]:
        return [r for r in self.runs if isinstance(r, CellRun)]

    @property
    def prose(self) -> list[ProseRun]:
        return [r for r in self.runs if isinstance(r, ProseRun)]

    @property
    def claims(self) -> list[ClaimResult]:
        return [c for p in self.prose for c in p.claims]

    def metadata(self) -> JSON:
        """The notebook's own `lecture` metadata (each run's goes on its cell)."""
        env = self.environment
        return {"name": self.name, "versions": env.versions, "key": env.key, "executed_at": env.executed_at}

    def to_json(self) -> JSON:
        """The whole record as JSON data: what the execution cache stores."""
        return {"name": self.name, "environment": self.environment.to_json(),
                "runs": [run.to_json() for run in self.runs], "timings": self.timings}

    @classmethod
    def from_json(cls, data: Any) -> Execution:
        """The record `to_json` wrote; RecordShapeError names what is wrong with any data that does
        not fit schemas/execution.yaml (the only check: the fields below are then of their types)."""
        problem = schema.misfit(data, "execution")
        if problem:
            raise RecordShapeError(f"not an execution record: {problem}")
        runs = [CellRun.from_json(run) if run["kind"] == "cell" else ProseRun.from_json(run) for run in data["runs"]]
        return cls(data["name"], Environment.from_json(data["environment"]), runs, data["timings"])

    @classmethod
    def from_notebook(cls, nb: Any) -> Execution:
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


def option_lines(options: JSON) -> str:
    """The `#|` lines a code cell of the executed notebook starts with (Quarto reads them there)."""
    # `file:` is already resolved into the code; Quarto must not load it a second time.
    kept = {k: v for k, v in options.items() if k != "file"}
    if not kept:
        return ""
    text = yaml.safe_dump(kept, allow_unicode=True, sort_keys=False, default_flow_style=False, width=1000)
    return "".join(f"#| {line}\n" for line in text.splitlines())


def _code_of(source: str, options: JSON) -> str:
    """The cell's code without the option lines the notebook put before it."""
    prefix = option_lines(options)
    return source[len(prefix):] if source.startswith(prefix) else source
