"""The course: a project and its lectures (project), building many lectures at once (builder), the course page
and code zips (site), the render command (render), Quarto's products (quarto_products), and throwaway
projects for tests and the bench (scaffold)."""
