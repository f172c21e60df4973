"""Stage 1, read: a lecture's folder and front matter into a Lecture of code blocks and prose (qmd, frontmatter)."""
