-- Format-conditional content, speaker notes and pauses.
local C = require("common")

-- Quarto's format aliases that matter for our two products.
local ALIASES = {
  revealjs = { revealjs = true, html = true },
  typst = { typst = true, pdf = true },
}

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

return {
  Div = function(el)
    if not C.quarto then
      if C.has_class(el, "content-visible") then
        local when, unless = el.attributes["when-format"], el.attributes["unless-format"]
        local show = (when == nil or matches(when)) and (unless == nil or not matches(unless))
        return show and el.content or {}
      end
      if C.has_class(el, "content-hidden") then
        local when, unless = el.attributes["when-format"], el.attributes["unless-format"]
        local hide = (when == nil or matches(when)) and (unless == nil or not matches(unless))
        return hide and {} or el.content
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
