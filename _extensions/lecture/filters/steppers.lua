-- A stepper: one code cell whose `code-line-numbers: "|1-2|3"` declares highlight steps, and an
-- ordered list with one explanation per step.
-- Slides: the code once, highlighted step by step; each explanation appears with its step.
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
  return "লাইন " .. C.bn(spec:gsub("-", "–"):gsub(",", ", "))
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

local function stepper(div)
  local code = find_code(div.content)
  local list_index
  for i, b in ipairs(div.content) do
    if b.t == "OrderedList" then list_index = i end
  end
  local where = div.identifier ~= "" and div.identifier or "a stepper"
  if not code or not list_index then
    C.fail(where .. " needs a cell with '#| code-line-numbers:' and an ordered list of step explanations")
  end
  local steps = steps_of(code.attributes["code-line-numbers"])
  local items = div.content[list_index].content
  if #steps ~= #items then
    C.fail(string.format("%s declares %d highlight steps but explains %d", where, #steps, #items))
  end

  if C.slides and C.quarto and not included then
    quarto.doc.include_text("in-header", QUARTO_FRAGMENT_INDEX)
    included = true
  end
  if C.slides then
    -- reveal.js clones the code once per step as fragments numbered from the code's own index;
    -- starting at 1 gives step k the same index as explanation k. (find_code saw a copy.)
    div = div:walk({ CodeBlock = function(cb)
      if cb.attributes["code-line-numbers"] then
        cb.attributes["data-fragment-index"] = "1"
        return cb
      end
    end })
    local notes = {}
    for i, item in ipairs(items) do
      local step = pandoc.Div(item, pandoc.Attr("", { "fragment", "stepper-step", "fade-in-then-semi-out" },
        { ["data-fragment-index"] = tostring(i) }))
      table.insert(step.content, 1, pandoc.Plain({ pandoc.Strong({ pandoc.Str(C.bn(i) .. ".") }), pandoc.Space() }))
      table.insert(notes, step)
    end
    div.content[list_index] = pandoc.Div(notes, pandoc.Attr("", { "stepper-steps" }))
    div.classes:insert("stepper-slide")
    return div
  end

  -- Handout: label each explanation with the lines it talks about.
  for i, item in ipairs(items) do
    local first = item[1]
    if first and (first.t == "Plain" or first.t == "Para") then
      first.content:insert(1, pandoc.Space())
      first.content:insert(1, pandoc.Strong({ pandoc.Str("(" .. lines_label(steps[i]) .. ")") }))
    end
  end
  return div
end

return {
  Div = function(el)
    if C.has_class(el, "stepper") then return stepper(el) end
  end,
}
