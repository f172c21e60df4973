"""What the prose says: inline `{python}` expressions and `[sentence]{.claim check="expr"}` claims,
found once in a markdown run's text.
"""
import re
from dataclasses import dataclass

INLINE_EXPR = re.compile(r"`\{(?P<engine>[A-Za-z0-9_]+)\}\s+(?P<expr>[^`]+)`")


@dataclass(frozen=True)
class Inline:
    """An inline `{python} expr` of the prose: the kernel prints its value into the sentence."""
    expr: str
    line: int


@dataclass(frozen=True)
class Claim:
    """`[sentence]{.claim check="expr"}`: the kernel evaluates expr, the check reports it when false."""
    sentence: str
    expr: str
    line: int


def inline_expressions(text: str) -> list[str]:
    """The `{python} expr` expressions of a markdown run, in order."""
    return [m["expr"].strip() for m in INLINE_EXPR.finditer(text)]


def replace_inline(text: str, values: list[str]) -> str:
    """Replace each inline expression, in order, by its executed value."""
    it = iter(values)
    return INLINE_EXPR.sub(lambda m: next(it), text)


# A prose interpretation: `[sentence]{.claim check="expr"}`; the check evaluates expr after execution.
CLAIM_ATTRS = re.compile(r"\{(?=(?:[^}\"]|\"[^\"]*\")*\.claim\b)(?P<attrs>(?:[^}\"]|\"[^\"]*\")*)\}")
CHECK_ATTR = re.compile(r"\bcheck=\"(?P<expr>[^\"]*)\"")
CODE_SPAN = re.compile(r"(`+)(?:.+?)\1", re.S)


def claim_expressions(text: str) -> list[tuple[str, str]]:
    """(sentence, expression) of every claim span in a markdown run, in order.

    Brackets are matched with nesting, and code spans (inline expressions included) are opaque,
    so `[x is `{python} a[0]`]{.claim ...}` keeps its whole sentence.
    """
    masked = CODE_SPAN.sub(lambda m: "\0" * len(m.group(0)), text)
    claims, opened = [], []
    for i, char in enumerate(masked):
        if char == "[":
            opened.append(i)
        elif char == "]" and opened:
            start = opened.pop()
            attrs = CLAIM_ATTRS.match(masked, i + 1)
            if attrs:
                check = CHECK_ATTR.search(text, attrs.start(), attrs.end())
                if check is None:
                    raise ValueError(f"claim without check=\"...\": {text[start:attrs.end()][:80]}")
                claims.append((text[start + 1:i], check["expr"]))
    if len(claims) != len(CLAIM_ATTRS.findall(masked)):
        raise ValueError("a {.claim} attribute is not attached to a [bracketed sentence]")
    return claims
