"""Terminal codes: never part of the text a reader sees or a check compares, and never passed on to the
author's terminal in a message (an exception's text, pandoc's or Typst's error output, a file name).

A terminal acts on more than colours: OSC 52 writes the clipboard, OSC 0 the window title, DCS, APC, PM
and SOS carry strings to the terminal itself, and each has a one-byte (C1) form too. wcwidth (ECMA-48's
sequences, as terminals parse them) takes the escape sequences; the control strings, which it leaves
half (an SOS's text, a string that never ends), and the C1 forms are taken here.
"""
import re

from wcwidth import strip_sequences

# A control string, ESC-introduced or C1: DCS, SOS, OSC, PM, APC, up to its terminator (BEL, ST), or
# to the end of its line when it has none (the message's next lines are kept).
_CONTROL_STRING = re.compile(r"(?:\x1b[PX\]^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x9c\x1b\n]*(?:\x07|\x9c|\x1b\\)?")
# CSI in its C1 form: parameters, intermediates, a final byte.
_C1_CSI = re.compile(r"\x9b[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?")
# Every C0 and C1 control but newline and tab (a carriage return or backspace can hide what precedes
# it on a terminal), and DEL.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_ansi(text: str) -> str:
    """An output's text without terminal sequences (colour, cursor, title, clipboard …)."""
    return strip_sequences(_C1_CSI.sub("", _CONTROL_STRING.sub("", text)))


def terminal_text(text: str) -> str:
    """A message as it may reach a terminal: no sequence and no control character but newline and tab."""
    return _CONTROLS.sub("", strip_ansi(text))
