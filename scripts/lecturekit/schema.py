"""Options checked against a JSON schema where they are read, each error at its file:line.

Every option that reaches a template, an attribute or pandoc has a schema in `schemas/` (YAML
files holding JSON Schema, draft 2020-12): the cell options (`#|`), the front matter, `_quarto.yml`
(its `lecturekit:` settings) and each format's options (`format-<name>.yaml`). A schema says the
type, the allowed values (enum), the pattern of a string and the range of a number. A key the
schema does not know is an error naming the nearest known one (a typo would otherwise vanish or,
pasted into a template, run in the deck).

`type: number` and `type: integer` mean finite numbers here: `.inf` and `.nan` are YAML floats,
and a range (`minimum`) never refuses NaN. `type: date` is a YAML date (`date: 2026-01-05`).
A schema's `description` says in words what a pattern allows; it is the message's advice.

A record the kit keeps in `_build/` (a stamp, Quarto's hand-over files, a cache of search documents
or markup verdicts) is state a crash, an edit or another tool may damage: `read_state` reads it
through fsutil's reader of untrusted files and checks it against its schema, and a file that does
not fit is discarded with one warning.
"""
from __future__ import annotations

import datetime
import difflib
import functools
import json
import math
import sys
from collections.abc import Mapping
from os import PathLike
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from jsonschema.exceptions import ValidationError, best_match

from lecturekit.errors import LectureError
from lecturekit.fsutil import UnsafeFile, read_untrusted

SCHEMAS = Path(__file__).parent / "schemas"

KeyPath = tuple[str, ...]


def _finite_number(checker: Any, value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _finite_integer(checker: Any, value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _date(checker: Any, value: object) -> bool:
    return isinstance(value, (datetime.date, datetime.datetime))


_TYPES = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine_many(
    {"number": _finite_number, "integer": _finite_integer, "date": _date})
_extend: Any = jsonschema.validators.extend  # untyped in its stubs
_Validator = _extend(jsonschema.Draft202012Validator, type_checker=_TYPES)


@functools.cache
def load(name: str) -> dict[str, Any]:
    """The schema `schemas/<name>.yaml`; `x-properties-of: [other, …]` takes their properties too."""
    path = SCHEMAS / f"{name}.yaml"
    found: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    for other in found.pop("x-properties-of", []):
        found["properties"] = {**load(other).get("properties", {}), **found.get("properties", {})}
        # the properties taken refer to their own definitions (`$ref: "#/$defs/…"`)
        found["$defs"] = {**load(other).get("$defs", {}), **found.get("$defs", {})}
    return found


def has(name: str) -> bool:
    return (SCHEMAS / f"{name}.yaml").is_file()


@functools.cache
def _validator(name: str) -> Any:
    return _Validator(load(name))


def check(value: Any, name: str, file: str | PathLike[str] | None, lines: Mapping[KeyPath, int],
          at: KeyPath = (), what: str = "option", line: int | None = None, named: KeyPath = ()) -> None:
    """A LectureError at the line of the key that is wrong when `value` does not fit the schema
    `name`. `lines` gives the line of each key path; `at` is where `value` sits in that file (the
    key path prefix); `what` names the kind of option in the message, `named` the key path the
    message puts before the option's own (`revealjs: width`); `line` is the fallback."""
    error = best_match(_validator(name).iter_errors(value))
    if error is None:
        return
    path = [str(part) for part in error.absolute_path]
    keys = at + tuple(path)
    message = _message(error, what, [*named, *path])
    if error.validator == "additionalProperties":
        keys = keys + (_unknown(error)[0],)
    where = next((lines[keys[:n]] for n in range(len(keys), 0, -1) if keys[:n] in lines), line)
    raise LectureError(message, file, where)


def _unknown(error: ValidationError) -> list[str]:
    rules: Any = error.schema
    instance: Any = error.instance
    known = set(rules.get("properties", {}))
    return sorted(str(key) for key in instance if key not in known)


def _message(error: ValidationError, what: str, path: list[str]) -> str:
    name = ": ".join(path)
    value: Any = error.instance
    rules: Any = error.schema
    allowed: Any = error.validator_value
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "…"
    rule = rules.get("description") if isinstance(rules, dict) else None
    kind = error.validator
    if kind == "additionalProperties":
        key = _unknown(error)[0]
        full = ": ".join([*path, key])
        known = sorted(rules.get("properties", {}))
        near = difflib.get_close_matches(key, known, n=1, cutoff=0.5)
        hint = f"did you mean '{near[0]}'?" if near else ""
        listed = f"known: {', '.join(known)}" if len(known) <= 20 else ""
        return f"{what} '{full}' is outside the supported subset ({'; '.join(filter(None, (hint, listed)))})"
    if kind == "required":
        return f"{what} '{name}' needs {error.message.split(' is a required')[0]}" + (f": {rule}" if rule else "")
    if kind == "type":
        wanted = allowed if isinstance(allowed, list) else [allowed]
        names = {"number": "a finite number", "integer": "a whole number", "object": "a mapping",
                 "array": "a list", "null": "nothing", "boolean": "true or false", "string": "a text",
                 "date": "a date"}
        text = " or ".join(names.get(str(w), str(w)) for w in wanted)
        return f"{what} '{name}' has the wrong type: {shown} (it takes {text})" + (f"; {rule}" if rule else "")
    if kind == "enum":
        return f"{what} '{name}' is {shown}; it takes one of: {', '.join(map(str, allowed))}"
    if kind == "const":
        return f"{what} '{name}' is {shown}; it takes only {allowed!r}"
    if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        sign = {"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "more than",
                "exclusiveMaximum": "less than"}[kind]
        return f"{what} '{name}' is {shown}; it must be {sign} {allowed}" + (f" ({rule})" if rule else "")
    if kind in ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"):
        return f"{what} '{name}' is too {'short' if kind.startswith('min') else 'long'}: {error.message}"
    if kind == "pattern":
        return f"{what} '{name}' is {shown}, which is not allowed here" + (f": {rule}" if rule else
                                                                         f" (pattern {allowed})")
    return f"{what} '{name}' is {shown}: {error.message}" + (f" ({rule})" if rule else "")


def misfit(value: Any, name: str) -> str | None:
    """Why a record (JSON data the kit stored, or a file from another machine) does not fit the schema
    `name`, in one line naming where in the record; None when it fits. The caller decides what a
    misfit costs (a cache entry is discarded, a products folder's entry is not placed)."""
    error = best_match(_validator(name).iter_errors(value))
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path) or "the top"
    message = error.message if len(error.message) <= 120 else error.message[:117] + "…"
    return f"at {where}: {message}"


def read_state(path: str | PathLike[str], name: str, limit: int, what: str,
               then: str = "what it recorded is made again") -> Any | None:
    """A JSON state file of the kit's (`_build/…`), read through the one reader of untrusted files
    (fsutil: no link, pipe or file over `limit` bytes) and checked against the schema `name`: the
    record, or None when there is none. A damaged file (no regular file, oversize, not UTF-8 JSON,
    of another shape) is None too, said in one warning naming it, `what` it is, why and `then`, what
    the caller does instead; it is removed (a link itself, never what it points at), so a second
    read in the same run says nothing and the caller's next write makes it again."""
    path = Path(path)
    remove = True
    try:
        data = read_untrusted(path, limit)
        record = json.loads(data.decode("utf-8"))
        problem = misfit(record, name)
    except FileNotFoundError:
        return None
    except UnsafeFile as err:
        problem = err.why
    except OSError as err:  # unreadable (permissions): said, left for whoever can fix it
        problem, remove = f"cannot read it: {err.strerror}", False
    except (UnicodeDecodeError, ValueError, RecursionError) as err:  # ValueError: not JSON
        problem = str(err).split("\n")[0][:120]
    if problem is None:
        return record
    print(f"warning: {path}: discarded a damaged {what} ({problem}); {then}", file=sys.stderr, flush=True)
    if remove:
        try:
            path.unlink(missing_ok=True)
        except OSError:  # a folder where the file should be: the caller's write says so
            pass
    return None
