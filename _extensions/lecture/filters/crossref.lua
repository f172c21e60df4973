-- Figure numbers "ছবি ৯.১" (episode.number, Bengali digits) and `@fig-` references, the same under
-- plain pandoc and Quarto. Quarto parses a `fig-` cell into its own FloatRefTarget node (and would
-- caption it "Figure 1:"); that node becomes a plain pandoc Figure here, numbered our way, and the
-- references are resolved before Quarto's own cross-referencing runs (it then finds none left).
local C = require("common")

local numbers, count, episode = {}, 0, nil

local function label(id)
  return C.words.figure .. " " .. C.bn((episode and (episode .. ".") or "") .. numbers[id])
end

local function as_inlines(caption)
  if caption == nil then return pandoc.Inlines({}) end
  local kind = pandoc.utils.type(caption)
  if kind == "Inlines" then return caption end
  if kind == "Blocks" then return pandoc.utils.blocks_to_inlines(caption) end
  if kind == "Block" then return pandoc.utils.blocks_to_inlines({ caption }) end
  if kind == "Inline" then return pandoc.Inlines({ caption }) end
  return pandoc.Inlines({})
end

local function numbered(id, caption_inlines)
  count = count + 1
  numbers[id] = count
  local prefix = pandoc.Inlines({ pandoc.Strong({ pandoc.Str(label(id)) }), pandoc.Str(" — ") })
  prefix:extend(caption_inlines)
  return prefix
end

local function figure(fig)
  if not fig.identifier:match("^fig%-") then return nil end
  fig.caption.long = { pandoc.Plain(numbered(fig.identifier, as_inlines(fig.caption.long))) }
  return fig
end

-- Quarto's node for a cross-referenceable figure: turned into the pandoc Figure plain pandoc has.
local function float(node)
  if node.type ~= "Figure" or not (node.identifier or ""):match("^fig%-") then return nil end
  local attr = pandoc.Attr(node.identifier, node.classes or {}, node.attributes or {})
  local content = node.content
  if pandoc.utils.type(content) == "Block" then content = { content } end
  return pandoc.Figure(content, { long = { pandoc.Plain(numbered(node.identifier, as_inlines(node.caption_long))) } },
    attr)
end

local function reference(cite)
  local id = cite.citations[1].id
  if not id:match("^fig%-") then return nil end
  -- Bengali case endings join the id: "@fig-tree-এ" is figure fig-tree plus "-এ".
  local suffix = ""
  if not numbers[id] then
    local best = ""
    for known in pairs(numbers) do
      if id:sub(1, #known + 1) == known .. "-" and #known > #best then best = known end
    end
    if best ~= "" then suffix, id = id:sub(#best + 1), best end
  end
  if not numbers[id] then C.fail("@" .. cite.citations[1].id .. " refers to no figure") end
  local out = { pandoc.Link({ pandoc.Str(label(id)) }, "#" .. id) }
  if suffix ~= "" then table.insert(out, pandoc.Str(suffix)) end
  return out
end

-- A figure shown twice (the page folds an answer in place and prints it in the appendix): the
-- copy, marked `copy-of`, is not counted and takes its original's number.
local function copy(fig)
  local of = fig.attributes["copy-of"]
  if not of then return nil end
  fig.attributes["copy-of"] = nil
  if numbers[of] then
    local prefix = pandoc.Inlines({ pandoc.Strong({ pandoc.Str(label(of)) }), pandoc.Str(" — ") })
    prefix:extend(as_inlines(fig.caption.long))
    fig.caption.long = { pandoc.Plain(prefix) }
  end
  return fig
end

-- Three passes: the episode first (pandoc visits Meta after the blocks), then numbering in document
-- order, then the references and copies, which may come before the figure they name.
return {
  { Meta = function(meta)
      if meta.episode then episode = tonumber(pandoc.utils.stringify(meta.episode)) end
    end },
  { Figure = figure, FloatRefTarget = float },
  { Cite = reference, Figure = copy },
}
