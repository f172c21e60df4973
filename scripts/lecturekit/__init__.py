"""Lecture renderer: Quarto sources -> one execution -> reveal.js slides + Typst handout."""
