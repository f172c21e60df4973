"""`python -m lecturekit.check`: the check's command, which lives with the other commands in
lecturekit.cli.check (pyproject.toml's import contract allows this one import of the top layer)."""
import sys

from lecturekit.cli.check import main

if __name__ == "__main__":
    sys.exit(main())
