"""The records the check keeps in tests/expected/<lecture>.yaml, as types (expectations.py reads and
writes them; cause.py, prose.py and run.py fill them in)."""
from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from .normalise import Item

# What a run reported about its environment: versions, CPU, BLAS, threads, and `env` (a mapping).
Versions = dict[str, Any]


class CodeDigests(TypedDict):
    """cause.code_digests: the cell's own code, and code/ plus every earlier cell's code."""
    cell: str
    before: str


class Entry(TypedDict):
    """One cell's expectation: what it ran under, its code digests (when recorded), its outputs."""
    versions: Versions
    code: NotRequired[CodeDigests]
    outputs: list[Item]


class InlineRecord(TypedDict):
    """`_prose`: the text one inline expression printed."""
    file: str
    expr: str
    value: str


class ClaimRecord(TypedDict):
    """`_prose`: whether one claim held."""
    file: str
    claim: str
    holds: bool


ProseRecord = InlineRecord | ClaimRecord
