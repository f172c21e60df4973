-- Under `quarto preview` only: pre-render lists this filter in _build/quarto-render.yml, to run
-- before any other (`at: pre-ast`). Quarto renders the previewed sources once before it starts the
-- preview server, executing no cell, and post-render throws those pages away: scripts/preview
-- serves the decks, written from the executed notebooks through the lecture filter, which checks
-- them in full. An unexecuted source is no product (its cells drew no figure for a `@fig-`
-- reference to name), so that render gets an empty document, with the cover's render date and
-- versions given (provenance.lua would otherwise start a Python that imports torch to ask them):
-- it costs Quarto's start-up, not a lecture's render.
return {
  {
    Pandoc = function(doc)
      doc.meta["render-date"] = pandoc.MetaInlines({})
      doc.meta.versions = pandoc.MetaInlines({})
      return pandoc.Pandoc({}, doc.meta)
    end,
  },
}
