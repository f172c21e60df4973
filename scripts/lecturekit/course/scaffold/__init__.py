"""Throwaway projects built the same way for the tests and the benchmark: the project builder
(projects.py), the courses made with it (courses.py), and the preview server and browser they
drive (browser.py)."""
