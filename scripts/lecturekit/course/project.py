"""`Project` lives on the ground floor (lecturekit/project.py), where every stage may use it."""
from lecturekit.project import Project

__all__ = ["Project"]
