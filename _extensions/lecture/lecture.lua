-- The lecture's own semantics, shared by `quarto render` and scripts/render (plain pandoc).
-- Each concern is a small filter in filters/; they run in this order.
local here = PANDOC_SCRIPT_FILE:match("(.*[/\\])") or "./"
package.path = here .. "filters/?.lua;" .. package.path

local filters = {
  require("markup"),      -- a lecture source Quarto renders itself is judged by the reader first
  require("glossary"),    -- a lecture source Quarto renders itself gets the course glossary's entries
  require("numbers"),     -- exercises and discussions numbered before a format leaves one out
  require("visibility"),  -- .content-visible / .content-hidden, notes and pauses outside slides
  require("steppers"),    -- code shown once, highlighted step by step, with each step's explanation
  require("quiz"),        -- self-check: clickable options on slides, answer key in the handout
  require("answers"),     -- exercise / discussion solutions: next step on slides, appendix in the handout
  require("crossref"),    -- "ছবি ৯.১" figure numbers and @fig- references (instead of Quarto's)
  require("blocks"),      -- cells, outputs, callouts and boxes in each format's own form
  require("titles"),      -- the deck's title slide: course, episode line, English title
  require("provenance"),  -- the cover's render date and versions when Quarto executed the cells
  require("document"),    -- the whole document in the format's form (the page's contents, formulas)
  require("attributes"),  -- what reaches an attribute or the slide menu is text
}

-- A module may be several passes (a list of filter tables): run them in place, in order.
local flat = {}
for _, f in ipairs(filters) do
  if f[1] then
    for _, pass in ipairs(f) do table.insert(flat, pass) end
  else
    table.insert(flat, f)
  end
end
return flat
