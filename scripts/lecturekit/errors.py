"""One error type for everything an author can get wrong, always with a location."""


class LectureError(Exception):
    """A problem in a lecture source, reported as `file:line: [label] message`."""

    def __init__(self, message, file=None, line=None, label=None, detail=None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.label = label
        self.detail = detail  # e.g. a traceback, printed under the headline

    def __str__(self):
        where = str(self.file) if self.file else "<lecture>"
        if self.line:
            where += f":{self.line}"
        head = f"{where}: "
        if self.label:
            head += f"[cell {self.label}] "
        text = head + self.message
        if self.detail:
            text += "\n" + self.detail.rstrip()
        return text
