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

local function question(div)
  local kind = kind_of(div)
  counters[kind] = counters[kind] + 1
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
  if #solutions == 0 then C.fail(name .. " has no ::: {.answer} block") end
  local heading = pandoc.Strong({ pandoc.Str(name .. (title and (" · " .. title) or "")) })
  table.insert(kept, 1, pandoc.Para({ heading }))

  if C.slides then
    for _, s in ipairs(solutions) do
      s.classes:insert("fragment")
      s.content:insert(1, pandoc.Para({ pandoc.Strong({ pandoc.Str(C.words.answer) }) }))
      table.insert(kept, s)
    end
    return pandoc.Div(kept, pandoc.Attr(div.identifier, { kind, "question" }))
  end
  table.insert(kept, pandoc.Para({ pandoc.Emph({ pandoc.Str(C.words.answer_in_appendix .. name) }) }))
  local entry = { pandoc.Header(2, { pandoc.Str(name) },
    pandoc.Attr("ans-" .. kind .. "-" .. counters[kind], { "unnumbered" })) }
  for _, s in ipairs(solutions) do
    for _, b in ipairs(s.content) do table.insert(entry, b) end
  end
  table.insert(appendix, entry)
  return pandoc.Div(kept, pandoc.Attr(div.identifier, { kind, "question" }))
end


return {
  Div = function(el)
    if kind_of(el) then return question(el) end
  end,
  Pandoc = function(doc)
    -- The quiz filter runs earlier and leaves its answer key in the shared module.
    local key = C.quiz_key
    if C.slides or (#appendix == 0 and #key == 0) then return doc end
    doc.blocks:insert(pandoc.RawBlock("typst", "#answers-start()"))
    doc.blocks:insert(pandoc.Header(1, { pandoc.Str(C.words.answers) }, pandoc.Attr("sec-answers", { "unnumbered" })))
    for _, entry in ipairs(appendix) do
      for _, b in ipairs(entry) do doc.blocks:insert(b) end
    end
    if #key > 0 then
      doc.blocks:insert(pandoc.Header(2, { pandoc.Str(C.words.quiz_answers) }, pandoc.Attr("ans-quiz", { "unnumbered" })))
      for _, b in ipairs(key) do doc.blocks:insert(b) end
    end
    return doc
  end,
}
