-- A stepper: one code cell whose `code-line-numbers: "|1-2|3"` declares highlight steps, and an
-- ordered list with one explanation per step.
-- Slides: the code once, highlighted step by step; one short explanation at a time (the item's
-- bold lead and first sentence; the rest is for the handout and the notes), and the output appears
-- with the step whose lines print it, never before, or from step k on when the stepper says
-- `output-at="k"` (a step whose text quotes the output).
-- Handout: the code, then the numbered steps, each naming its lines.
local C = require("common")

local function steps_of(spec)
  local steps = {}
  for part in (spec .. "|"):gmatch("([^|]*)|") do table.insert(steps, part) end
  -- A leading empty step is "the whole code, nothing highlighted yet".
  if steps[1] == "" then table.remove(steps, 1) end
  return steps
end

local function find_code(blocks)
  local found
  pandoc.walk_block(pandoc.Div(blocks), {
    CodeBlock = function(cb)
      if not found and cb.attributes["code-line-numbers"] then found = cb end
    end,
  })
  return found
end

local function lines_label(spec)
  return C.words.line .. " " .. C.bn(spec:gsub("-", "–"):gsub(",", ", "))
end

-- Under Quarto the highlight steps are made by Quarto's own line-highlight plugin, which numbers
-- its fragments from the code element's data-fragment-index; Quarto writes that attribute on the
-- div around the code. This moves it onto the code before reveal.js (and the plugin) initialise.
local QUARTO_FRAGMENT_INDEX = [[
<script>
(function () {
  function moveIndices() {
    document.querySelectorAll("div.sourceCode[data-code-line-numbers][data-fragment-index]").forEach(function (div) {
      div.querySelectorAll("pre code").forEach(function (code) {
        code.setAttribute("data-fragment-index", div.getAttribute("data-fragment-index"));
      });
    });
  }
  var deck;
  Object.defineProperty(window, "Reveal", { configurable: true, get: function () { return deck; },
    set: function (value) {
      deck = value;
      if (value && value.initialize && !value.lectureSteppers) {
        var initialize = value.initialize;
        value.initialize = function () { moveIndices(); return initialize.apply(this, arguments); };
        value.lectureSteppers = true;
      }
    } });
})();
</script>
]]
local included = false

-- The line numbers a step highlights: "7-8" -> {7, 8}; "6,8" -> {6, 8}; none past `last` (the
-- reader refuses such a step; a range is never walked further than the code is long).
local function lines_of(spec, last)
  local lines = {}
  for part in spec:gmatch("[^,]+") do
    local a, b = part:match("^%s*(%d+)%s*%-%s*(%d+)%s*$")
    if a then
      for n = tonumber(a), math.min(tonumber(b), last) do table.insert(lines, n) end
    elseif part:match("%d") then
      table.insert(lines, tonumber(part:match("%d+")))
    end
  end
  return lines
end

-- For each print call in the code (in order), the first step that highlights its line.
local function print_steps(code_text, steps)
  local source = {}
  for line in (code_text .. "\n"):gmatch("([^\n]*)\n") do table.insert(source, line) end
  local first_step = {}
  for k, spec in ipairs(steps) do
    for _, n in ipairs(lines_of(spec, #source)) do
      if not first_step[n] then first_step[n] = k end
    end
  end
  local prints = {}
  for n, line in ipairs(source) do
    for _ in line:gmatch("print%(") do table.insert(prints, first_step[n] or #steps) end
  end
  return prints
end

local function fragment(blocks, index)
  return pandoc.Div(blocks, pandoc.Attr("", { "fragment", "stepper-output" }, { ["data-fragment-index"] = tostring(index) }))
end

-- The cell's output, revealed with its step: one printed line per print call when they match
-- one to one, otherwise the whole output with the last step that prints.
local function staged_output(out_div, prints, n_steps)
  local block = out_div.content[1]
  if #out_div.content ~= 1 or not block or block.t ~= "CodeBlock" then
    return pandoc.Div({ fragment(out_div.content, prints[#prints] or n_steps) }, out_div.attr)
  end
  local lines = {}
  for line in (block.text .. "\n"):gmatch("([^\n]*)\n") do table.insert(lines, line) end
  if #lines ~= #prints or #prints == 0 then
    return pandoc.Div({ fragment({ block }, prints[#prints] or n_steps) }, out_div.attr)
  end
  local groups, order = {}, {}
  for i, line in ipairs(lines) do
    local k = prints[i]
    if not groups[k] then groups[k] = {}; table.insert(order, k) end
    table.insert(groups[k], line)
  end
  local staged = {}
  for _, k in ipairs(order) do
    table.insert(staged, fragment({ pandoc.CodeBlock(table.concat(groups[k], "\n"), block.attr) }, k))
  end
  return pandoc.Div(staged, out_div.attr)
end

-- The slide's short form of an explanation: its bold lead and the first sentence after it.
local function short(item)
  local first = item[1]
  if not first or (first.t ~= "Plain" and first.t ~= "Para") then return item end
  local kept, seen = pandoc.Inlines({}), 0
  for _, inline in ipairs(first.content) do
    kept:insert(inline)
    local text = pandoc.utils.stringify(inline)
    if text:find("।") then
      seen = seen + 1
      if seen == 2 or (seen == 1 and inline.t ~= "Strong") then break end
    end
  end
  return { pandoc.Plain(kept) }
end

-- The stepper in the format's form. `s`: the code block, its steps ("7-8"), the explanations (list
-- items), the list's place in the div, and the name errors use.
local render = C.renderer("stepper", {
  revealjs = function(div, s)
    local code, steps, items, list_index, where = s.code, s.steps, s.items, s.list_index, s.where
    if C.quarto and not included then
      quarto.doc.include_text("in-header", QUARTO_FRAGMENT_INDEX)
      included = true
    end
    -- reveal.js clones the code once per step as fragments numbered from the code's own index;
    -- starting at 1 gives step k the same index as explanation k. (find_code saw a copy.)
    local prints = print_steps(code.text, steps)
    -- `output-at="k"` on the stepper: the whole output is there from step k on (when step k's
    -- explanation talks about a number the code prints later), each line no later than with its print.
    local at = div.attributes["output-at"]
    if at then
      local k = tonumber(at)
      if not k or k < 1 or k > #steps or k ~= math.floor(k) then
        C.fail(string.format("%s: output-at=%q is not a step number (1 to %d)", where, at, #steps), div)
      end
      for i, step in ipairs(prints) do prints[i] = math.min(step, k) end
      if #prints == 0 then prints = { k } end
    end
    div = div:walk({ CodeBlock = function(cb)
      if cb.attributes["code-line-numbers"] then
        cb.attributes["data-fragment-index"] = "1"
        return cb
      end
    end, Div = function(d)
      if C.has_class(d, "cell-output") then return staged_output(d, prints, #steps) end
    end })
    local notes = {}
    for i, item in ipairs(items) do
      local step = pandoc.Div(short(item), pandoc.Attr("", { "fragment", "stepper-step", "current-visible" },
        { ["data-fragment-index"] = tostring(i) }))
      table.insert(step.content, 1, pandoc.Plain({ pandoc.Strong({ pandoc.Str(C.bn(i) .. ".") }), pandoc.Space() }))
      table.insert(notes, step)
    end
    div.content[list_index] = pandoc.Div(notes, pandoc.Attr("", { "stepper-steps" }))
    div.classes:insert("stepper-slide")
    return div
  end,
  default = function(div, s)
    local steps, items = s.steps, s.items
    -- On a page: each explanation names the lines it talks about.
    for i, item in ipairs(items) do
      local first = item[1]
      if first and (first.t == "Plain" or first.t == "Para") then
        first.content:insert(1, pandoc.Space())
        first.content:insert(1, pandoc.Strong({ pandoc.Str("(" .. lines_label(steps[i]) .. ")") }))
      end
    end
    return div
  end,
})

local function stepper(div)
  local code = find_code(div.content)
  local list_index
  for i, b in ipairs(div.content) do
    if b.t == "OrderedList" then list_index = i end
  end
  local where = div.identifier ~= "" and div.identifier or "a stepper"
  if not code or not list_index then
    C.fail(where .. " needs a cell with '#| code-line-numbers:' and an ordered list of step explanations", div)
  end
  local steps = steps_of(code.attributes["code-line-numbers"])
  local items = div.content[list_index].content
  if #steps ~= #items then
    C.fail(string.format("%s declares %d highlight steps but explains %d", where, #steps, #items), div)
  end
  return render(div, { code = code, steps = steps, items = items, list_index = list_index, where = where })
end

return {
  Div = function(el)
    if C.has_class(el, "stepper") then return stepper(el) end
  end,
}
