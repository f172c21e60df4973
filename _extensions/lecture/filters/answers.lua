-- Exercises and discussion questions carry their `.answer` inside (not `.solution`: Quarto turns
-- that class into its own proof environment before any user filter runs).
-- Slides: the solution is the next step. Handout: the question stays in place and every solution
-- goes to one appendix at the end ("উত্তরমালা"), numbered like its question.
local C = require("common")

local KINDS = C.words.kinds

local appendix = {}
local counters = { exercise = 0, discussion = 0 }

local function kind_of(div)
  for kind in pairs(KINDS) do
    if C.has_class(div, kind) then return kind end
  end
end

-- A solution for the appendix, headed by its question's name.
local function to_appendix(kind, name, solutions)
  local entry = { pandoc.Header(2, { pandoc.Str(name) },
    pandoc.Attr("ans-" .. kind .. "-" .. counters[kind], { "unnumbered" })) }
  for _, s in ipairs(solutions) do
    for _, b in ipairs(s.content) do table.insert(entry, b) end
  end
  table.insert(appendix, entry)
end

-- The question and its solutions in the format's form: on slides the solution is the next step;
-- on a page it goes to the appendix (`add_to_appendix()`), and the question says so.
local render_question = C.renderer("question", {
  revealjs = function(div, kind, name, kept, solutions)
    for _, s in ipairs(solutions) do
      s.classes:insert("fragment")
      s.content:insert(1, pandoc.Para({ pandoc.Strong({ pandoc.Str(C.words.answer) }) }))
      table.insert(kept, s)
    end
    return pandoc.Div(kept, pandoc.Attr(div.identifier, { kind, "question" }))
  end,
  default = function(div, kind, name, kept, solutions, add_to_appendix)
    table.insert(kept, pandoc.Para({ pandoc.Emph({ pandoc.Str(C.words.answer_in_appendix .. name) }) }))
    add_to_appendix()
    return pandoc.Div(kept, pandoc.Attr(div.identifier, { kind, "question" }))
  end,
})

-- The appendix's blocks: the solutions, then the quiz's key (quiz.lua leaves it in the document,
-- marked); none when there is nothing to answer.
local function appendix_blocks(key)
  local blocks = pandoc.Blocks({})
  if #appendix == 0 and #key == 0 then return blocks end
  blocks:insert(pandoc.Header(1, { pandoc.Str(C.words.answers) }, pandoc.Attr("sec-answers", { "unnumbered" })))
  for _, entry in ipairs(appendix) do
    for _, b in ipairs(entry) do blocks:insert(b) end
  end
  if #key > 0 then
    blocks:insert(pandoc.Header(2, { pandoc.Str(C.words.quiz_answers) }, pandoc.Attr("ans-quiz", { "unnumbered" })))
    for _, b in ipairs(key) do blocks:insert(b) end
  end
  return blocks
end

local function write_appendix(doc, key, start)
  local blocks = appendix_blocks(key)
  if #blocks == 0 then return doc end
  if start then doc.blocks:insert(start) end
  doc.blocks:extend(blocks)
  return doc
end

-- The appendix in the format's form; `appendix_blocks(key)` gives its blocks (none when there is
-- nothing to answer).
local render_appendix = C.renderer("appendix", {
  revealjs = function(doc, key) return doc end,
  typst = function(doc, key) return write_appendix(doc, key, pandoc.RawBlock("typst", "#answers-start()")) end,
  default = function(doc, key) return write_appendix(doc, key) end,
})

local function question(div)
  local kind = kind_of(div)
  -- numbers.lua's number, given before a format left any question out.
  counters[kind] = tonumber(div.attributes["lecture-number"]) or counters[kind] + 1
  div.attributes["lecture-number"] = nil
  local name = KINDS[kind] .. " " .. C.bn(counters[kind])
  local title = div.attributes["title"]
  local kept, solutions = {}, {}
  for _, b in ipairs(div.content) do
    if b.t == "Div" and C.has_class(b, "answer") then
      table.insert(solutions, b)
    else
      table.insert(kept, b)
    end
  end
  if #solutions == 0 then C.fail(name .. " has no ::: {.answer} block", div) end
  local heading = pandoc.Strong({ pandoc.Str(name .. (title and (" · " .. title) or "")) })
  table.insert(kept, 1, pandoc.Para({ heading }))

  return render_question(div, kind, name, kept, solutions, function() to_appendix(kind, name, solutions) end)
end

return {
  Div = function(el)
    if kind_of(el) then return question(el) end
  end,
  Pandoc = function(doc)
    local key = pandoc.List()
    doc.blocks = doc.blocks:walk({ Div = function(el)
      if C.has_class(el, "quiz-key") then
        key:extend(el.content)
        return {}
      end
    end })
    return render_appendix(doc, key, appendix_blocks)
  end,
}
