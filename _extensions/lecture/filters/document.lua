-- The whole document, last, in the format's form: what a format needs of the document as one (the
-- page's contents list is made from all its headings, its formulas are typeset in one go). The deck
-- and the handout need nothing here.
local C = require("common")

return {
  Pandoc = C.renderer("document", { default = function(doc) return nil end }),
}
