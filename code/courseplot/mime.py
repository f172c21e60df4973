"""The display bundle's MIME type for a plot's data (read by scripts/lecturekit/check/plots.py)."""
PLOT_MIME = "application/vnd.lecture.plot+json"
