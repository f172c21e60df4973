"""Lecture renderer: Quarto sources -> one execution -> reveal.js slides + Typst handout.

One sub-package a stage, in pipeline order: read (sources to a Lecture), execute (one kernel, cached),
check (outputs against tests/expected/), write (executed notebook, slides, handout); course (a
project of many lectures, the course page) and cli (the commands) sit on top. errors is shared.
"""
