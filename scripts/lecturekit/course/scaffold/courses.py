"""Throwaway courses, for the tests and the benchmark: a real lecture copied with the course code,
a generated course of N small lectures, a project Quarto can render, and an author's prose edit.
"""
import os
import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path

from lecturekit.course.scaffold.projects import SOURCE, ProjectBuilder

# Words added to a sentence of plain prose: the execution stays cached, the products are written again.
PROSE_EDIT = " (আবার পড়ুন)"


def find_quarto() -> str | None:
    """The Quarto CLI the tests and the bench run: `$QUARTO`, else `quarto` on PATH; None without one."""
    found = os.environ.get("QUARTO") or shutil.which("quarto")
    return found if found and Path(found).exists() else None


def lecture_project(folder: Path, source: Path, lecture: str) -> Path:
    """A copy of the source project's course code and one of its lectures, with its expectations."""
    project = ProjectBuilder(folder, source)
    if (source / "code").is_dir():
        project.copy_code()
    project.copy_lecture(lecture)
    return project.root


def quarto_ready(root: Path, kit: Path = SOURCE) -> Path:
    """A project Quarto can render: the scripts its pre-render and post-render run, and the settings
    scripts/setup checks, from the kit's checkout (its venv linked, as the npm packages are)."""
    shutil.copytree(kit / "scripts", root / "scripts",
                    ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", "*.pyc", "*.egg-info"))
    for name in ("pyproject.toml", "package.json"):
        shutil.copy(kit / name, root / name)
    (root / ".venv").symlink_to(kit / ".venv")
    return root


def add_prose(project: Path, lecture: str, words: str = PROSE_EDIT) -> Path:
    """An author's prose fix: words added to the first line of plain prose (outside code, with no
    inline code, math, link or attribute), in the section files, else the index. A new paragraph
    would be a new prose block, which the execution key counts."""
    source, text = prose_edit(project, lecture, words)
    source.write_text(text, encoding="utf-8")
    return source


def prose_edit(project: Path, lecture: str, words: str = PROSE_EDIT,
               shown: Callable[[str], bool] = lambda line: True, middle: bool = False) -> tuple[Path, str]:
    """(the file add_prose edits, its text after the edit), nothing written. `shown`: only a line
    it accepts (the preview takes one its deck shows: some prose is the handout's only); `middle`:
    a section file from the middle of the lecture first."""
    folder = project / "lectures" / lecture
    sections = sorted(folder.glob("_*.qmd"))
    if middle:
        sections = sections[len(sections) // 2:] + sections[:len(sections) // 2]
    for source in [*sections, folder / "index.qmd"]:
        lines = source.read_text(encoding="utf-8").split("\n")
        fenced = False
        body = next((i + 1 for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), 0) \
            if lines[0].strip() == "---" else 0  # after the front matter
        for number, line in enumerate(lines[body:], body):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            elif not fenced and line[:1].isalpha() and not any(c in line for c in "`{}[]$|<>*_") \
                    and shown(line):
                lines[number] = line.rstrip() + words
                return source, "\n".join(lines)
    raise LookupError(f"no line of plain prose in {folder} to edit")


SYNTHETIC = textwrap.dedent("""\
    ---
    title: "কৃত্রিম পর্ব {n}"
    title-en: "Synthetic lecture {n}"
    course: "বাংলায় PyTorch"
    episode: {n}
    episodes: 91
    module: {module}
    ---

    # হিসাব {{#sec-count}}

    ```{{python}}
    #| label: setup
    from minipkg import ANSWER, square
    ```

    ছোট একটি হিসাব: উত্তর `{{python}} ANSWER`।

    ```{{python}}
    #| label: squares
    print([square(i) for i in range({width})])
    ```

    ## আরও {{#sec-more}}

    ::: {{.notes}}
    বক্তার নোট।
    :::

    ```{{python}}
    #| label: total
    print(sum(square(i) for i in range({width})) + {n})
    ```
    """)


def synthetic_course(folder: Path, count: int) -> ProjectBuilder:
    """`count` copies of a small lecture (three cells, no torch), each with its own script, and a tiny
    course package."""
    project = ProjectBuilder(folder)
    project.add_package("minipkg", {"__init__.py": "ANSWER = 42\n\n\ndef square(x):\n    return x * x\n"})
    for n in range(1, count + 1):
        write_synthetic(project, n)
    return project


def write_synthetic(project: ProjectBuilder, n: int, width: int = 8) -> None:
    """Lecture `n` of a synthetic course (written again: `width` changes its code)."""
    name = f"{n:02d}-synthetic"
    project.add_lecture(name, SYNTHETIC.format(n=n, module=(n - 1) // 10 + 1, width=width))
    project.add_scripts(name, {"01_squares.py": "from minipkg import square\n\nprint([square(i) for i in range(5)])\n"})
