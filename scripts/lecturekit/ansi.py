"""Terminal codes in a program's output: never part of the text a reader sees or a check compares."""
import re

# Terminal colour and cursor codes (CSI) and window-title sequences (OSC).
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)
