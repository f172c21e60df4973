"""The commands: console scripts (commands), the bench (bench) and the pinned venv (pins; stdlib only, it runs
before the venv exists)."""
