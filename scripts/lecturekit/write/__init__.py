"""Stage 4, write: the executed notebook (notebook, figures) and each format's product from it (formats, emit,
writers)."""
