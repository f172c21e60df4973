-- A lecture's glossary names the course glossary's concepts: `::: {.glossary terms="view stride"}`.
-- The reader puts their entries in after the div (read/glossary.py), so an executed notebook holds
-- them. When Quarto renders a lecture source itself no reader wrote it: the entries are put in here,
-- from the same file and in the same place, as a definition list (the reader has already checked
-- the file and the keys: markup.lua asks it first). Data only: the entries are parsed as markdown.
local C = require("common")

local function draft_source()
  if not C.quarto then return false end
  local input = quarto.doc.input_file
  return input ~= nil and input:match("%.qmd$") ~= nil
end

local function course_glossary()
  local root = quarto.project and quarto.project.directory
  if not root then return nil end
  local f = io.open(root .. "/lectures/glossary.yaml", "r")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return pandoc.read("---\n" .. text .. "\n---\n", "markdown").meta
end

local function entries(glossary, keys)
  local items = {}
  for key in keys:gmatch("%S+") do
    local entry = glossary[key]
    if entry then
      local term, en = pandoc.utils.stringify(entry.term), pandoc.utils.stringify(entry.en)
      local heading = pandoc.Inlines(entry.term)
      if term ~= en then heading:extend({ pandoc.Space(), pandoc.Str("(" .. en .. ")") }) end
      table.insert(items, { heading, { { pandoc.Plain(pandoc.Inlines(entry.definition)) } } })
    end
  end
  return items
end

return {
  Pandoc = function(doc)
    if not draft_source() then return nil end
    local glossary
    doc.blocks = doc.blocks:walk({ Blocks = function(blocks)
      local out, changed = pandoc.Blocks({}), false
      for _, b in ipairs(blocks) do
        out:insert(b)
        if b.t == "Div" and C.has_class(b, "glossary") and b.attributes["terms"] then
          glossary = glossary or course_glossary()
          if glossary then
            out:insert(pandoc.DefinitionList(entries(glossary, b.attributes["terms"])))
            changed = true
          end
        end
      end
      if changed then return out end
    end })
    return doc
  end,
}
