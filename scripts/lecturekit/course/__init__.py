"""The course: what joins lectures. Each folder holds one responsibility, and they depend one way
(pyproject.toml's `course-rooms` contract): site/ (the course page, code zips, what pages share)
< build/ (the incremental build, its records and stamps) < quarto/ (Quarto's pre- and post-render)
< preview/ (the live preview server); scaffold/ (throwaway projects for tests and the bench) apart.
The commands that run them live in cli/."""
