"""The commands, one module each: render, quarto (Quarto's pre- and post-render steps), preview, bench,
modtree; the console scripts that start them (commands) and the pinned venv (pins; stdlib only, it runs
before the venv exists)."""
