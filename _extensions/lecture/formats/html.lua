-- The lecture as a web page (format `html`: _output/<lecture>/index.html), for students on phones:
-- the handout's text with the deck's outputs and figures. Each renderer draws one block; the blocks
-- not named here take the format-neutral default (callouts and boxes titled, figures described).
-- On screen an answer opens on request (<details>, no script needed); printed, every answer is in
-- the appendix at the end, as in the handout (page.css shows `.print-only` in print alone).
local C = require("common")

local W = C.words.page_words

local function raw(text) return pandoc.RawBlock("html", text) end

local function escape(text)
  return (text:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"))
end

-- Blocks folded under a summary line: open on request, shown by the browser without JavaScript.
local function folded(blocks, summary, class)
  local out = { raw('<details class="' .. class .. '"><summary>' .. escape(summary) .. "</summary>") }
  for _, b in ipairs(blocks) do table.insert(out, b) end
  table.insert(out, raw("</details>"))
  return pandoc.Div(out, pandoc.Attr("", { "folded" }))
end

-- A copy for the folded answer on screen: the appendix keeps the ids (the handout's place for them);
-- a figure of the copy takes the number of the appendix's (crossref.lua).
local function without_ids(blocks)
  local function clear(el) el.identifier = ""; return el end
  local function figure(fig)
    if fig.identifier ~= "" then fig.attributes["copy-of"] = fig.identifier end
    return clear(fig)
  end
  return pandoc.Blocks(blocks):walk({ Div = clear, Span = clear, Header = clear, CodeBlock = clear,
    Code = clear, Link = clear, Image = clear, Figure = figure, Table = clear })
end

local function print_only(blocks)
  return pandoc.Div(blocks, pandoc.Attr("", { "print-only" }))
end

-- ---- headings, contents, formulas: the whole page -------------------------------------------------

-- A heading's text for the contents: its inlines without links or notes (no link inside a link).
local function heading_html(header)
  local inlines = header.content:walk({
    Link = function(link) return link.content end,
    Note = function() return {} end,
  })
  return C.inlines_to(inlines, "html")
end

-- The contents: every part with its sections, as links; on a phone the parts alone (page.css).
local function contents(blocks)
  local parts = {}
  for _, block in ipairs(blocks) do
    if block.t == "Header" and block.identifier ~= "" and block.level <= 2 then
      local entry = { id = block.identifier, html = heading_html(block), children = {} }
      if block.level == 1 or #parts == 0 then
        table.insert(parts, entry)
      else
        table.insert(parts[#parts].children, entry)
      end
    end
  end
  local out = { '<ol class="toc-parts">' }
  for _, part in ipairs(parts) do
    table.insert(out, '<li><a href="#' .. escape(part.id) .. '">' .. part.html .. "</a>")
    if #part.children > 0 then
      table.insert(out, '<ol class="toc-sections">')
      for _, child in ipairs(part.children) do
        table.insert(out, '<li><a href="#' .. escape(child.id) .. '">' .. child.html .. "</a></li>")
      end
      table.insert(out, "</ol>")
    end
    table.insert(out, "</li>")
  end
  table.insert(out, "</ol>")
  return table.concat(out, "\n")
end

-- Every formula of the page typeset by KaTeX (node_modules/katex) in one run of node, when the page
-- is written: the page needs KaTeX's stylesheet and fonts, never its script. KaTeX escapes what it
-- is given and, untrusted (its default), refuses \href, \url and HTML extensions.
local function typeset(doc)
  local formulas = {}
  doc:walk({ Math = function(m)
    table.insert(formulas, { tex = m.text, display = m.mathtype == "DisplayMath" })
  end })
  if #formulas == 0 then return doc, false end
  local script = C.extension_dir .. "page/katex.mjs"
  local ok, out = pcall(pandoc.pipe, "node", { script }, pandoc.json.encode(formulas))
  if not ok then
    C.fail("the page's formulas need node and KaTeX (npm; scripts/setup): " .. tostring(out))
  end
  local result = pandoc.json.decode(out, false)
  if result.error then
    C.fail("KaTeX cannot typeset $" .. formulas[result.index + 1].tex .. "$: " .. result.error)
  end
  local n = 0
  doc = doc:walk({ Math = function(m)
    n = n + 1
    return pandoc.RawInline("html", result.html[n])
  end })
  return doc, true
end

-- The page's header: "পর্ব ০৯ · ৯১-এর মধ্যে · মডিউল ২" as the deck's title slide says it.
local function episode_line(meta)
  local episode = meta.episode and pandoc.utils.stringify(meta.episode)
  if not episode then return nil end
  local parts = { C.words.episode .. " " .. C.bn(string.format("%02d", tonumber(episode) or 0)) }
  if meta.episodes then table.insert(parts, C.bn(pandoc.utils.stringify(meta.episodes)) .. C.words.of_episodes) end
  if meta.module then table.insert(parts, C.words.module .. " " .. C.bn(pandoc.utils.stringify(meta.module))) end
  return table.concat(parts, " · ")
end

-- The learning goals: the first list after the heading classed `.goals`, shown again at the top of
-- the page (on screen; printed, the page is the handout, which has them in place).
local function goals(blocks)
  local found = false
  for _, block in ipairs(blocks) do
    if block.t == "Header" then
      if found then return nil end
      found = C.has_class(block, "goals")
    elseif found and (block.t == "OrderedList" or block.t == "BulletList") then
      return block
    end
  end
end

local function page(doc)
  local has_math
  doc, has_math = typeset(doc)  -- first: a formula reaches the contents and the goals typeset
  doc.meta["has-math"] = has_math
  local listed = goals(doc.blocks)
  if listed then doc.meta["page-goals"] = pandoc.MetaBlocks({ listed:clone() }) end
  doc.meta["page-toc"] = pandoc.MetaBlocks({ raw(contents(doc.blocks)) })
  -- One h1, the lecture's title (the template's): parts are h2, their sections h3.
  doc = doc:walk({ Header = function(h)
    h.level = h.level + 1
    return h
  end })
  -- Tables numbered as the handout numbers them ("সারণি ৯.১", its caption after), in the handout's
  -- order: a folded answer is a copy of the appendix's and is not counted. A wide table scrolls in
  -- its own box, never the page.
  local episode = doc.meta.episode and tonumber(pandoc.utils.stringify(doc.meta.episode))
  local tables = 0
  doc = doc:walk({ traverse = "topdown",
    Div = function(div)
      if C.has_class(div, "folded") then return div, false end
    end,
    Table = function(t)
      tables = tables + 1
      local label = pandoc.Inlines({ pandoc.Strong({ pandoc.Str(C.words.table .. " " ..
        C.bn((episode and (episode .. ".") or "") .. tables)) }) })
      local caption = pandoc.utils.blocks_to_inlines(t.caption.long or {})
      if #caption > 0 then label:insert(pandoc.Str(" — ")); label:extend(caption) end
      t.caption.long = { pandoc.Plain(label) }
      return pandoc.Div({ t }, pandoc.Attr("", { "table-box" })), false
    end,
  })
  doc = doc:walk({ Table = function(t)
    if #(t.caption.long or {}) == 0 then return pandoc.Div({ t }, pandoc.Attr("", { "table-box" })) end
  end })
  doc.meta["episode-line"] = episode_line(doc.meta)
  -- The site's root (the course page, assets/), from _output/<lecture>/; a draft (Quarto executing
  -- a source itself) lands one folder deeper, in _output/<lecture>/draft/.
  local draft = C.quarto and (quarto.doc.input_file or ""):match("%.qmd$")
  doc.meta["page-root"] = draft and "../../" or "../"
  doc.meta["page-words"] = pandoc.MetaMap((function()
    local words = {}
    for key, value in pairs(W) do words[key] = pandoc.MetaString(value) end
    return words
  end)())
  return doc
end

-- ---- the blocks -------------------------------------------------------------------------------------

return {
  document = page,

  -- Part numbers as the handout writes them ("অংশ ১ · …"), the number styled on its own.
  part_number = function(header, label)
    header.content:insert(1, pandoc.Str(" ·"))
    header.content:insert(1, pandoc.Span({ pandoc.Str(label) }, pandoc.Attr("", { "part-number" })))
    header.content:insert(3, pandoc.Space())
    return header
  end,

  -- The quiz: question and lettered options as in the handout; the right option and why, folded.
  -- The key also goes to the appendix (printed at the end).
  quiz = function(q)
    local shown = C.renderer_of("quiz", "default")(q)
    local answer = pandoc.Blocks({ pandoc.Para({ pandoc.Strong({ pandoc.Str(C.words.answer .. ": " .. C.letters[q.right] .. ")") }),
      pandoc.Space() }) })
    answer[1].content:extend(pandoc.utils.blocks_to_inlines(q.options[q.right].blocks))
    answer:extend(q.explain)
    shown[1].content:insert(folded(without_ids(answer), W.show_answer, "quiz-answer"))
    return shown
  end,

  -- Exercises and discussion questions: the answer folded in place; printed, in the appendix.
  question = function(div, kind, name, kept, solutions, add_to_appendix)
    add_to_appendix()
    local answer = pandoc.Blocks({})
    for _, s in ipairs(solutions) do answer:extend(s.content) end
    table.insert(kept, print_only({ pandoc.Para({ pandoc.Emph({ pandoc.Str(C.words.answer_in_appendix .. name) }) }) }))
    table.insert(kept, folded(without_ids(answer), W.show_answer, "answer"))
    return pandoc.Div(kept, pandoc.Attr(div.identifier, { kind, "question" }))
  end,

  appendix = function(doc, key, appendix_blocks)
    local blocks = appendix_blocks(key)
    if #blocks > 0 then doc.blocks:insert(pandoc.Div(blocks, pandoc.Attr("", { "print-only", "answers" }))) end
    return doc
  end,

  -- A stepper: the code with numbered lines, then its steps, each naming its lines (as printed);
  -- the steps' lines are on the list too, for the page's script to light them up.
  stepper = function(div, s)
    div = C.renderer_of("stepper", "default")(div, s)
    div.classes:insert("page-stepper")
    div.attributes["data-step-lines"] = table.concat(s.steps, "|")
    return div
  end,

  -- Numbered by the stylesheet (a counter), not by pandoc's line links: nothing to copy or tap.
  line_numbers = function(el, spec)
    el.attributes["code-line-numbers"] = nil
    el.classes:insert("numbered")
    return el
  end,

  -- The render date and versions under the title, as on the handout's cover.
  provenance = function(meta) return C.renderer_of("provenance", "typst")(meta) end,
}
