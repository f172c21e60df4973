"""The display bundle's MIME types: a plot's data (read by scripts/lecturekit/check/plots.py) and
its look (line styles, markers, colours; read by tests/test_plots.py, never by the output check:
a style change is not an output change)."""
PLOT_MIME = "application/vnd.lecture.plot+json"
STYLE_MIME = "application/vnd.lecture.plot-style+json"
