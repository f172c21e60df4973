"""The course page, each lecture's code zip, and what the lecture pages take from the course
(links, shared assets, search)."""
