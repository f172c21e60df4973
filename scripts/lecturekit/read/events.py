"""The event-handler attributes a browser runs: an attribute key of these names, where pandoc parsed an
attribute (a span, link, image, code, heading, div, code block, table …), would run in the deck.

Pandoc's HTML writers keep a key as an attribute only when HTML knows it; any other key becomes
`data-<key>` (`{one=1}` → `data-one="1"`, `{onClick=1}` → `data-onClick="1"`), which runs nothing. So
read/markup.py refuses exactly these keys, on the attributes in pandoc's AST (text that only looks
like an attribute block is text there). `tests/test_bad_input.py` checks this set against
Chromium's and the rule against pandoc's HTML.
"""

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
