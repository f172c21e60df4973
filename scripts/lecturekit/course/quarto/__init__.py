"""Quarto's way in: its pre-render and post-render steps, what passes between them, the sources
read before Quarto reads them, and what `quarto preview` leaves behind."""
