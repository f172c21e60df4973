-- Cells, outputs, callouts, boxes and figures in each product's own form.
-- Slides style them with theme.css; the handout calls the functions of handout.typ.
local C = require("common")
local pdf_figures = require("pdf_figures")

local CALLOUT_TITLES = C.words.callouts
local BOXES = C.words.boxes

local function callout_kind(div)
  for _, cls in ipairs(div.classes) do
    local kind = cls:match("^callout%-(%a+)$")
    if kind then return kind end
  end
end

-- A callout's title: its `title` attribute, or a leading heading inside it.
local function take_title(div, default)
  if div.attributes["title"] then return pandoc.Inlines(div.attributes["title"]) end
  local first = div.content[1]
  if first and first.t == "Header" then
    div.content:remove(1)
    return first.content
  end
  return pandoc.Inlines(default)
end

-- A callout or box with its title, in the format's form (theme.css styles the div; handout.typ's
-- `callout` draws the box).
local function titled_div(div, kind, title)
  local head = pandoc.Div({ pandoc.Plain(title) }, pandoc.Attr("", { "callout-title" }))
  div.content:insert(1, head)
  div.classes = pandoc.List({ "callout", "callout-" .. kind })
  div.attributes["title"] = nil
  return div
end

local render_callout = C.renderer("callout", {
  revealjs = titled_div,
  typst = function(div, kind, title)
    return C.typst_wrap("callout", 'kind: "' .. kind .. '", title: [' .. C.inlines_to(title, "typst") .. "]", div.content)
  end,
  default = titled_div,
})

local function callout(div, kind, default_title, title)
  return render_callout(div, kind, title or take_title(div, default_title))
end

local function output_kind(div)
  for _, cls in ipairs(div.classes) do
    local kind = cls:match("^cell%-output%-(%a+)$")
    if kind then return kind end
  end
  return "stdout"
end

-- A figure's description for screen readers and the PDF's /Alt: its `fig-alt`, else the image's
-- own caption, else (Quarto hands a cell's image over uncaptioned) the output's own description
-- as scripts/render takes it, else the figure's caption without crossref.lua's "ছবি ৯.১ — ".
local function alt_text(fig, image)
  local alt = image.attributes["fig-alt"]
  if alt and alt ~= "" then return alt end
  -- (Under Quarto an image keeps its caption only in a block the page shows and Quarto hid, read
  -- as written: the output's description comes first there, as scripts/render's emitter puts it.)
  alt = C.quarto and pdf_figures.description_for(image.src)
  if alt then return alt end
  alt = pandoc.utils.stringify(image.caption)
  if alt ~= "" then return alt end
  alt = pandoc.utils.stringify(pandoc.utils.blocks_to_inlines(fig.caption.long or {}))
  local numbered = alt:match("^" .. C.words.figure .. " [^ ]+ — (.*)$")
  return numbered or alt
end

local function figure_typst(fig)
  local image
  fig:walk({ Image = function(img) image = image or img end })
  if not image then return nil end
  if C.quarto then image.src = pdf_figures.pdf_for(image.src) end
  local alt = alt_text(fig, image)
  local caption = C.inlines_to(pandoc.utils.blocks_to_inlines(fig.caption.long), "typst")
  local call = string.format('#figure(image(%s, alt: %s, width: 100%%), caption: [%s], numbering: none, supplement: none)',
    C.typst_string(image.src), C.typst_string(alt), caption)
  if fig.identifier ~= "" then call = call .. " <" .. fig.identifier .. ">" end
  return pandoc.RawBlock("typst", call)
end

-- Quarto parses callout divs into its own Callout node before user filters run; give that node the
-- same form as plain pandoc's div, so both renderers write the same callout.
local function quarto_callout(node)
  local kind = node.type or "note"
  local title = node.title
  local kind_of_title = title and pandoc.utils.type(title)
  if kind_of_title == "Blocks" then title = pandoc.utils.blocks_to_inlines(title)
  elseif kind_of_title == "Block" then title = pandoc.utils.blocks_to_inlines({ title })
  elseif kind_of_title == "Inline" then title = pandoc.Inlines({ title }) end
  if not title or #title == 0 then title = pandoc.Inlines(CALLOUT_TITLES[kind] or kind) end
  local div = pandoc.Div(node.content, pandoc.Attr(node.attr and node.attr.identifier or "", { "callout-" .. kind }))
  return callout(div, kind, nil, title)
end

-- Quarto keeps terminal colour codes and, for an error, the whole traceback; scripts/render shows
-- output as plain text and an error as its last line ("Type: message"). For HTML, Quarto has
-- already turned coloured output into raw HTML (`::: {.ansi-escaped-output}` around `<pre>` with
-- spans): read that back to plain text first.
local ANSI = "\27%[[0-9;?]*[A-Za-z]"

local function error_message(text)
  -- The message starts at the last unindented "Name: ..." line that is not a frame's header.
  local lines, start = {}, nil
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    table.insert(lines, line)
    if line:match("^[%a_][%w_.]*: ") and not line:match("^File ") and not line:match("^Cell ") then
      start = #lines
    end
  end
  if not start then return text end
  return (table.concat(lines, "\n", start):gsub("%s+$", ""))
end

local function plain_text(raw)
  local text
  pandoc.read(raw, "html").blocks:walk({ CodeBlock = function(cb) text = text or cb.text end })
  return text
end

local function quarto_output(div)
  local is_error = C.has_class(div, "cell-output-error")
  local function clean(text)
    text = text:gsub(ANSI, "")
    if is_error then text = error_message(text) end
    return text
  end
  return div:walk({
    Div = function(inner)
      if not C.has_class(inner, "ansi-escaped-output") then return nil end
      local text
      inner:walk({ RawBlock = function(raw)
        if raw.format == "html" then text = text or plain_text(raw.text) end
      end })
      if text then return pandoc.CodeBlock(clean(text)) end
    end,
    CodeBlock = function(cb)
      cb.text = clean(cb.text)
      return cb
    end,
  })
end

local function keep() return nil end

-- Pandoc's Typst writer puts every table in a figure of kind table (handout.typ numbers them
-- "সারণি ৯.১"); Quarto's writes an uncaptioned table bare.
local render_table = C.renderer("table", {
  typst = function(tbl)
    if C.quarto then return C.typst_wrap("figure", "kind: table", { tbl }) end
  end,
  default = keep,
})

-- A cell's output (Quarto's already cleaned to plain text, as scripts/render emits it).
local render_output = C.renderer("output", {
  revealjs = function(el)
    -- Output is text, not code: keep highlight.js from guessing a language for it, unless
    -- the cell names one (`class-output: python` for printed source).
    return el:walk({ CodeBlock = function(cb)
      if #cb.classes == 0 then cb.classes:insert("nohighlight") end
      return cb
    end })
  end,
  typst = function(el)
    -- A figure a cell shows stands on its own, as our renderer emits it: the output box is
    -- for printed text.
    local text = false
    el:walk({ CodeBlock = function() text = true end })
    if not text then return el.content end
    return C.typst_wrap("output-block", 'kind: "' .. output_kind(el) .. '"', el.content)
  end,
  default = function(el) return el end,
})

-- A formula in the handout carries its TeX as its text alternative (PDF /Alt), as the slides'
-- KaTeX carries it in MathML.
local render_math = C.renderer("math", {
  typst = function(m)
    local typst = pandoc.write(pandoc.Pandoc({ pandoc.Plain({ m }) }), "typst"):gsub("%s+$", "")
    local alt = m.text:gsub("%s+", " "):gsub("^ ", ""):gsub(" $", ""):gsub("\\", "\\\\"):gsub('"', '\\"')
    local block = m.mathtype == "DisplayMath" and "true" or "false"
    return pandoc.RawInline("typst", string.format('#math.equation(alt: "%s", block: %s, %s)', alt, block, typst))
  end,
  default = keep,
})

-- Highlighted lines (`code-line-numbers`): reveal.js reads data-line-numbers; a printed page has
-- nothing to step through. Quarto converts the attribute itself for its deck and handout.
local render_line_numbers = C.renderer("line_numbers", {
  revealjs = function(el, spec)
    if C.quarto then return el end
    el.attributes["code-line-numbers"] = nil
    el.attributes["data-line-numbers"] = spec
    return el
  end,
  default = function(el, spec)
    if not C.quarto then el.attributes["code-line-numbers"] = nil end
    return el
  end,
})

-- An image without a caption (an output shown without `fig-cap`) is no figure: its `fig-alt` is
-- its description, written where each writer reads one (the image's own text: HTML's alt).
local function alt_from_fig_alt(img)
  -- (A figure's image keeps its fig-alt: the figure's description reads it.)
  local alt = img.attributes["fig-alt"]
  if alt and alt ~= "" and #img.caption == 0 then
    img.caption = pandoc.Inlines(alt)
    if not C.quarto then img.attributes["fig-alt"] = nil end
  end
  return img
end

-- Any image of an output (a figure or not) takes its PDF rendering in Quarto's handout.
local render_image = C.renderer("image", {
  typst = function(img)
    img = alt_from_fig_alt(img)
    if C.quarto then img.src = pdf_figures.pdf_for(img.src) end
    return img
  end,
  default = alt_from_fig_alt,
})

-- pandoc's Typst writer leaves an image's text out; Quarto's writes it. A picture no figure holds
-- (figure_typst writes figures whole) is written here as Quarto writes it, in a pass after the
-- figures, so the handout's PDF carries its /Alt on both paths. A size Typst does not read as
-- written (pandoc converts px) stays with pandoc's writer.
local TYPST_LENGTH = { "^[%d.]+%%$", "^[%d.]+pt$", "^[%d.]+mm$", "^[%d.]+cm$", "^[%d.]+in$", "^[%d.]+em$" }
local function typst_length(value)
  for _, pattern in ipairs(TYPST_LENGTH) do
    if value:match(pattern) then return value end
  end
end

local render_image_text = C.renderer("image_text", {
  typst = function(img)
    local alt = pandoc.utils.stringify(img.caption)
    if C.quarto or alt == "" then return nil end
    local args = { C.typst_string(img.src), "alt: " .. C.typst_string(alt) }
    for _, dim in ipairs({ "width", "height" }) do
      local value = img.attributes[dim]
      if value then
        local length = typst_length(value)
        if not length then return nil end
        table.insert(args, dim .. ": " .. length)
      end
    end
    return pandoc.RawInline("typst", "#box(image(" .. table.concat(args, ", ") .. "))")
  end,
  default = function() return nil end,
})

-- Screen readers get the figure's description, not the caption a second time.
local function described(fig, image_classes)
  return fig:walk({ Image = function(img)
    local alt = alt_text(fig, img)
    img.caption = pandoc.Inlines(alt)
    -- Quarto writes the img's alt from fig-alt (and drops the caption); pandoc from the caption.
    if C.quarto then img.attributes["fig-alt"] = alt else img.attributes["fig-alt"] = nil end
    for _, cls in ipairs(image_classes or {}) do img.classes:insert(cls) end
    return img
  end })
end

local render_figure = C.renderer("figure", {
  typst = figure_typst,
  -- One figure per slide is the slide's content, not a picture to stretch (Quarto would
  -- otherwise replace the figure by a stretched image and a caption paragraph).
  revealjs = function(fig) return described(fig, C.quarto and { "nostretch" } or {}) end,
  default = described,
})

-- Quarto reads a cell's `class-output` from the notebook onto the cell but leaves the printed text
-- unclassed; class it as scripts/render does (`python`: printed source, highlighted as code).
local function quarto_class_output(cell)
  local classes = cell.attributes["class-output"]
  if not classes or classes == "" then return nil end
  return cell:walk({ Div = function(out)
    if not C.has_class(out, "cell-output-stdout") then return nil end
    return out:walk({ CodeBlock = function(cb)
      cb.classes = pandoc.List({})
      for cls in classes:gmatch("%S+") do cb.classes:insert(cls) end
      return cb
    end })
  end })
end

return { {
  Callout = quarto_callout,
  Math = render_math,
  Table = render_table,
  Div = function(el)
    if C.has_class(el, "cell-output") then
      if C.quarto then el = quarto_output(el) end
      return render_output(el)
    end
    if C.quarto and C.has_class(el, "cell") then return quarto_class_output(el) end
    -- (Quarto has made its Callout node of every callout it read; a callout div left is one that
    -- Quarto hid and visibility.lua showed, as written.)
    local kind = callout_kind(el)
    if kind and not C.has_class(el, "callout") then return callout(el, kind, CALLOUT_TITLES[kind] or kind) end
    for cls, title in pairs(BOXES) do
      if C.has_class(el, cls) then return callout(el, cls, title) end
    end
  end,
  CodeBlock = function(el)
    local spec = el.attributes["code-line-numbers"]
    if spec then return render_line_numbers(el, spec) end
    return el
  end,
  Image = render_image,
  Figure = render_figure,
}, {
  Image = render_image_text,
} }
