-- The lecture's own semantics, shared by `quarto render` and scripts/render (plain pandoc).
-- Each concern is a small filter in filters/; they run in this order.
local here = PANDOC_SCRIPT_FILE:match("(.*[/\\])") or "./"
package.path = here .. "filters/?.lua;" .. package.path

return {
  require("visibility"),  -- .content-visible / .content-hidden, notes and pauses outside slides
  require("steppers"),    -- code shown once, highlighted step by step, with each step's explanation
  require("quiz"),        -- self-check: clickable options on slides, answer key in the handout
  require("answers"),     -- exercise / discussion solutions: next step on slides, appendix in the handout
  require("crossref"),    -- @fig- references and "ছবি ৯.১" numbering (Quarto does its own)
  require("blocks"),      -- cells, outputs, callouts and boxes in each format's own form
  require("titles"),      -- the deck's title slide: course, episode line, English title
}
