"""Lecture renderer: Quarto sources -> one execution -> reveal.js slides + Typst handout.

One sub-package a stage, in pipeline order: read (sources to a Lecture), execute (one kernel, cached,
into the executed notebook), then check (outputs against tests/expected/) and write (slides,
handout, figures) beside each other; course (a project of many lectures, the course page) and cli
(the commands) sit on top. The ground floor every stage may use: errors, words, project, yamlio,
fsutil, ansi. A stage imports only what is below it (pyproject.toml [tool.importlinter]).
"""
