-- Exercises and discussion questions numbered in the source's order, before any format leaves one
-- out: a handout-only exercise keeps its number, so the slides' numbers are the handout's.
-- answers.lua names each question by this number.
local C = require("common")

local KINDS = C.words.kinds

return {
  Pandoc = function(doc)
    local counters = {}
    doc.blocks = doc.blocks:walk({ Div = function(div)
      for kind in pairs(KINDS) do
        if C.has_class(div, kind) then
          counters[kind] = (counters[kind] or 0) + 1
          div.attributes["lecture-number"] = tostring(counters[kind])
          return div
        end
      end
    end })
    return doc
  end,
}
