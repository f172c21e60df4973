-- Format-conditional content, speaker notes and pauses.
local C = require("common")

-- Quarto's format aliases that matter for our products. The page (html) shows what the handout
-- shows: a block for `typst`/`pdf` is on the page too, a block for `revealjs` is not.
local ALIASES = {
  revealjs = { revealjs = true, html = true },
  typst = { typst = true, pdf = true },
  html = { html = true, typst = true, pdf = true },
}
-- Formats for which Quarto's own decision (by its format names) differs from ours: Quarto hides a
-- `when-format="typst"` block from `html`. For them the block is decided again here.
local DECIDED_HERE_UNDER_QUARTO = { html = true }

local function matches(list)
  local names = ALIASES[C.format] or {}
  for name in (list or ""):gmatch("[^%s,]+") do
    if names[name] or FORMAT == name then return true end
  end
  return false
end

local function is_pause(el)
  return el.t == "Para" and #el.content == 5 and pandoc.utils.stringify(el) == ". . ."
end

-- Speaker notes and pauses belong to the deck; a page has neither (Quarto's typst output would
-- keep the notes' text). A renderer returns the block's replacement, or nil to keep it.
local function keep() return nil end
local function drop() return {} end
local notes = C.renderer("notes", { revealjs = keep, default = drop })
local pause = C.renderer("pause", { revealjs = keep, default = drop })

-- Whether a `.content-visible` (or, `visible` false, `.content-hidden`) block is shown.
local function shown(visible, when, unless)
  local match = (when == nil or matches(when)) and (unless == nil or not matches(unless))
  return match == visible
end

local unconditional  -- this filter without its ConditionalBlock handler (below)

-- Quarto has parsed each conditional block into its ConditionalBlock node and emptied the ones its
-- own names hide (the block as written stays in `original_node`, whose notes, pauses and claims
-- this filter then sees for the first time). Only the format conditions are ours to decide; one
-- with a profile or metadata condition keeps Quarto's decision.
local function quarto_conditional(node)
  local condition = node.condition or {}
  for key in pairs(condition) do
    if key ~= "when-format" and key ~= "unless-format" then return nil end
  end
  local function names(list) return list and table.concat(list, " ") end
  local show = shown(node.behavior == "content-visible", names(condition["when-format"]), names(condition["unless-format"]))
  if not show then return {} end
  -- Shown by Quarto too: its node (normalised like the rest) stays; hidden by it: the block as written.
  local hidden_by_quarto = #node.node.content == 0 and #node.original_node.content > 0
  if hidden_by_quarto then return pandoc.Blocks(node.original_node.content):walk(unconditional) end
end

unconditional = {
  Div = function(el)
    if not C.quarto then
      for cls, visible in pairs({ ["content-visible"] = true, ["content-hidden"] = false }) do
        if C.has_class(el, cls) then
          return shown(visible, el.attributes["when-format"], el.attributes["unless-format"]) and el.content or {}
        end
      end
    end
    if C.has_class(el, "notes") then return notes(el) end
  end,
  Para = function(el)
    if is_pause(el) then return pause(el) end
  end,
  -- A claim is checked by the tests; readers see only its sentence.
  Span = function(el)
    if C.has_class(el, "claim") then return el.content end
  end,
}

return {
  ConditionalBlock = function(node)
    if DECIDED_HERE_UNDER_QUARTO[C.format] then return quarto_conditional(node) end
  end,
  Div = unconditional.Div,
  Para = unconditional.Para,
  Span = unconditional.Span,
}
