"""Which attributes of a lecture's markdown would run in the deck, and where pandoc reads attributes.

Pandoc reads an attribute block `{…}` only in a few places: right after a bracketed span or link
text (`[…]{…}`), an inline link or image (`[…](…){…}`), a code span (`` `…`{…} ``), at the end of a
heading, after the opening fence of a div or code block (`::: {…}`, ```` ``` {…} ````) and at
the end of a reference definition. Anywhere
else `{onclick=1}` is text, shown as written. Its HTML writer keeps a key as an attribute only when
HTML knows it; any other key becomes `data-<key>` (`{one=1}` → `data-one="1"`), which runs nothing.
So a key is refused when it is an event handler a browser runs, in a place pandoc reads it.
`tests/test_robust_read.py` checks this set against Chromium's and the places against pandoc's output.
"""
import re

# Every event-handler content attribute Chromium knows (the `on…` properties of its elements,
# document and window): pandoc keeps those of them that HTML defines; the rest would be data-*.
EVENT_HANDLERS = frozenset({
    "onabort", "onafterprint", "onanimationcancel", "onanimationend", "onanimationiteration",
    "onanimationstart", "onappinstalled", "onauxclick", "onbeforecopy", "onbeforecut", "onbeforeinput",
    "onbeforeinstallprompt", "onbeforematch", "onbeforepaste", "onbeforeprint", "onbeforetoggle",
    "onbeforeunload", "onbeforexrselect", "onblur", "oncancel", "oncanplay", "oncanplaythrough", "onchange",
    "onclick", "onclose", "oncommand", "oncontentvisibilityautostatechange", "oncontextlost",
    "oncontextmenu", "oncontextrestored", "oncopy", "oncuechange", "oncut", "ondblclick", "ondrag",
    "ondragend", "ondragenter", "ondragleave", "ondragover", "ondragstart", "ondrop", "ondurationchange",
    "onemptied", "onencrypted", "onended", "onerror", "onfocus", "onformdata", "onfreeze",
    "onfullscreenchange", "onfullscreenerror", "ongamepadconnected", "ongamepaddisconnected",
    "ongotpointercapture", "onhashchange", "oninput", "oninvalid", "onkeydown", "onkeypress", "onkeyup",
    "onlanguagechange", "onload", "onloadeddata", "onloadedmetadata", "onloadstart", "onlostpointercapture",
    "onmessage", "onmessageerror", "onmousedown", "onmouseenter", "onmouseleave", "onmousemove",
    "onmouseout", "onmouseover", "onmouseup", "onmousewheel", "onoffline", "ononline", "onpagehide",
    "onpagereveal", "onpageshow", "onpageswap", "onpaste", "onpause", "onplay", "onplaying",
    "onpointercancel", "onpointerdown", "onpointerenter", "onpointerleave", "onpointerlockchange",
    "onpointerlockerror", "onpointermove", "onpointerout", "onpointerover", "onpointerup", "onpopstate",
    "onprerenderingchange", "onprogress", "onratechange", "onreadystatechange", "onrejectionhandled",
    "onreset", "onresize", "onresume", "onscroll", "onscrollend", "onscrollsnapchange",
    "onscrollsnapchanging", "onsearch", "onsecuritypolicyviolation", "onseeked", "onseeking", "onselect",
    "onselectionchange", "onselectstart", "onslotchange", "onstalled", "onstorage", "onsubmit", "onsuspend",
    "ontimeupdate", "ontoggle", "ontransitioncancel", "ontransitionend", "ontransitionrun",
    "ontransitionstart", "onunhandledrejection", "onunload", "onvisibilitychange", "onvolumechange",
    "onwaiting", "onwaitingforkey", "onwebkitanimationend", "onwebkitanimationiteration",
    "onwebkitanimationstart", "onwebkitfullscreenchange", "onwebkitfullscreenerror", "onwebkittransitionend",
    "onwheel",
})

_ATTRS = r"\{(?P<attrs>[^{}\n]*)\}"
_LINK_END = r"\]\((?:[^()\n]|\([^()\n]*\))*\)"
# Where pandoc reads `{…}` as attributes; code spans are blanked to spaces and their closing backtick.
INLINE_ATTRS = re.compile(rf"(?:{_LINK_END}|\]|`){_ATTRS}")
HEADING_ATTRS = re.compile(rf"^\s{{0,3}}#{{1,6}}\s.*?\s{_ATTRS}\s*$")
DIV_ATTRS = re.compile(rf"^\s{{0,3}}(?::{{3,}}|`{{3,}}|~{{3,}})\s*{_ATTRS}")  # a fenced div or code block
REFERENCE_ATTRS = re.compile(rf"^\s{{0,3}}\[[^\]]+\]:\s*\S+(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*{_ATTRS}\s*$")
SETEXT_UNDERLINE = re.compile(r"^\s{0,3}(?:=+|-+)\s*$")
_QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'")
_KEY = re.compile(r"(?:^|\s)(?P<key>[^\s=#.][^\s=]*)=")


def handler_in(line: str, heading: bool = False) -> str | None:
    """The first event-handler key in an attribute block pandoc reads on this line (code spans
    blanked); `heading`: the line is a setext heading's text, whose trailing block pandoc reads."""
    blocks = [m["attrs"] for m in INLINE_ATTRS.finditer(line)]
    for rule in (HEADING_ATTRS, DIV_ATTRS, REFERENCE_ATTRS):
        if match := rule.search(line):
            blocks.append(match["attrs"])
    if heading and (match := re.search(rf"\s{_ATTRS}\s*$", line)):
        blocks.append(match["attrs"])
    for attrs in blocks:
        for key in _KEY.finditer(_QUOTED.sub('""', attrs)):
            if key["key"] in EVENT_HANDLERS:
                return key["key"]
    return None
