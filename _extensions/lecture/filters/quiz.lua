-- Self-check quiz: `::: {.quiz}` holds the question, a task list of options (`- [x]` marks the right
-- one) and an `::: {.explain}` block saying why.
-- Slides: the options are buttons (slides.html makes them answer, offline, by mouse or keyboard);
-- the explanation is also the next step, so a printed deck still shows question, then answer.
-- Handout: question and lettered options in place; the key goes to the appendix.
local C = require("common")

local count = 0

local function option_of(item)
  local first = item[1]
  if not first or (first.t ~= "Plain" and first.t ~= "Para") then return nil end
  local mark = first.content[1]
  if not mark or mark.t ~= "Str" or (mark.text ~= "☐" and mark.text ~= "☒") then return nil end
  local content = first.content:clone()
  content:remove(1)
  if content[1] and content[1].t == "Space" then content:remove(1) end
  local blocks = pandoc.List({ pandoc.Plain(content) })
  for i = 2, #item do blocks:insert(item[i]) end
  return { correct = mark.text == "☒", blocks = blocks }
end

local function html(blocks)
  return C.to_format(blocks, "html")
end

-- The quiz in the format's form. `q`: name, count, identifier, question (blocks), options
-- ({ correct, blocks }), right (the right option's number), explain (blocks).
local render = C.renderer("quiz", {
  revealjs = function(q)
    local question, options, explain, right = q.question, q.options, q.explain, q.right
    local parts = { '<div class="quiz" data-quiz="' .. q.count .. '">',
      '<div class="quiz-question">' .. html(question) .. "</div>", '<ol class="quiz-options">' }
    for i, opt in ipairs(options) do
      table.insert(parts, string.format(
        '<li><button type="button" class="quiz-option" data-correct="%s"><span class="quiz-letter">%s</span> %s</button></li>',
        opt.correct and "true" or "false", C.letters[i], html(opt.blocks)))
    end
    table.insert(parts, '</ol><p class="quiz-feedback" role="status" aria-live="polite"></p>')
    table.insert(parts, '<div class="quiz-explain fragment"><p><strong>' .. C.words.answer .. ': ' .. C.letters[right] ..
      "</strong></p>" .. html(explain) .. "</div></div>")
    return pandoc.RawBlock("html", table.concat(parts, "\n"))
  end,
  default = function(q)
    local name, question, options, explain, right = q.name, q.question, q.options, q.explain, q.right
    local out = pandoc.List({ pandoc.Para({ pandoc.Strong({ pandoc.Str(name) }) }) })
    out:extend(question)
    -- The letter is the option's only marker (no bullet before it); copies keep the options as written.
    local lettered = pandoc.List()
    for i, opt in ipairs(options) do
      local inlines = pandoc.Inlines({ pandoc.Strong({ pandoc.Str(C.letters[i] .. ")") }), pandoc.Space() })
      inlines:extend(pandoc.utils.blocks_to_inlines(opt.blocks))
      lettered:insert(pandoc.Para(inlines))
    end
    out:insert(pandoc.Div(lettered, pandoc.Attr("", { "quiz-options" })))
    local key = pandoc.List({ pandoc.Para({ pandoc.Strong({ pandoc.Str(name .. ": " .. C.letters[right] .. ")") }),
      pandoc.Space() }) })
    key[1].content:extend(pandoc.utils.blocks_to_inlines(options[right].blocks))
    key:extend(explain)
    -- The key travels in the document, marked, to the appendix answers.lua writes.
    return { pandoc.Div(out, pandoc.Attr(q.identifier, { "quiz" })), pandoc.Div(key, pandoc.Attr("", { "quiz-key" })) }
  end,
})

local function quiz(div)
  count = count + 1
  local name = C.words.question .. " " .. C.bn(count)
  local question, options, explain = pandoc.List(), nil, pandoc.List()
  for _, b in ipairs(div.content) do
    if b.t == "BulletList" and not options then
      options = {}
      for _, item in ipairs(b.content) do
        local opt = option_of(item)
        if not opt then C.fail(name .. ": every option must be a task item, '- [ ]' or '- [x]'", div) end
        table.insert(options, opt)
      end
    elseif b.t == "Div" and C.has_class(b, "explain") then
      explain:extend(b.content)
    else
      question:insert(b)
    end
  end
  if not options then C.fail(name .. " has no options", div) end
  if #options > #C.letters then
    C.fail(string.format("%s has %d options; a quiz takes at most %d (one letter each)", name, #options, #C.letters), div)
  end
  local right
  for i, opt in ipairs(options) do
    if opt.correct then
      if right then C.fail(name .. " marks more than one option right", div) end
      right = i
    end
  end
  if not right then C.fail(name .. " marks no option right ('- [x]')", div) end
  return render({ name = name, count = count, identifier = div.identifier, question = question,
    options = options, right = right, explain = explain })
end

return {
  Div = function(el)
    if C.has_class(el, "quiz") then return quiz(el) end
  end,
}
