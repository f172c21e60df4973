"""The course: building many lectures at once (builder), the course page and code zips (site), what
Quarto's pre- and post-render steps decide (quarto_products), the live preview (preview), and throwaway
projects for tests and the bench (scaffold). The commands that run them live in cli/."""
