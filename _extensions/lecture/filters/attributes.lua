-- What reaches an attribute, or a plugin of the deck that reads it as HTML, is text.
--
-- Pandoc writes a metadata value into a template as the format's markup, and HTML's keeps quotes as
-- they are: `content="$title-en$"` would end at a `"` of the title. Every front-matter value a
-- template of the page or the deck (ours, pandoc's, Quarto's) puts into an attribute is therefore
-- given to the template as its text with & < > " ' written as entities (ATTRIBUTE_META). It is
-- still its text where a template also shows it in an element.
--
-- The slide menu (reveal.js-menu, in both renders) puts a slide's title into the menu as HTML. It
-- reads no heading (`titleSelector: ""`, reveal-menu.html and _quarto.yml): every slide and part
-- divider gets its heading's text, escaped for HTML, as `data-menu-title`, and the title slide the
-- lecture's title (through `title-slide-attributes`, which the template writes into the attribute as
-- it is: escaped twice, once for the attribute and once for the menu).
local C = require("common")

local ENTITIES = { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&#39;" }

local function escaped(text)
  return (text:gsub("[&<>\"']", ENTITIES))
end

-- Front-matter keys the templates write into an attribute (`<meta name="description" content=…>`,
-- `<meta name="keywords" content=…>`); pandoc's own `author-meta`, `date-meta` and `pagetitle`
-- it escapes itself.
local ATTRIBUTE_META = { "title-en", "keywords" }

local HTML_FORMATS = { html = true, revealjs = true }

local function as_text(value)
  if pandoc.utils.type(value) == "List" then
    return pandoc.MetaList(pandoc.List(value):map(as_text))
  end
  return pandoc.MetaInlines({ pandoc.RawInline("html", escaped(pandoc.utils.stringify(value))) })
end

local function meta_as_text(meta)
  if not HTML_FORMATS[C.format] then return nil end
  for _, key in ipairs(ATTRIBUTE_META) do
    if meta[key] ~= nil then meta[key] = as_text(meta[key]) end
  end
  if C.format == "revealjs" and meta.title then
    local attributes = meta["title-slide-attributes"] or pandoc.MetaMap({})
    attributes["data-menu-title"] = pandoc.MetaInlines({
      pandoc.RawInline("html", escaped(escaped(pandoc.utils.stringify(meta.title)))) })
    meta["title-slide-attributes"] = attributes
  end
  return meta
end

local slide_level = (PANDOC_WRITER_OPTIONS and PANDOC_WRITER_OPTIONS.slide_level) or 2

-- A slide's (or part divider's) menu title: its heading's text, escaped for HTML (pandoc escapes
-- the attribute itself).
local function menu_title(header)
  if C.format ~= "revealjs" or header.level > slide_level then return nil end
  local text = pandoc.utils.stringify(header.content)
  if text == "" then return nil end
  header.attributes["data-menu-title"] = escaped(text)
  return header
end

return {
  { Header = menu_title },
  { Meta = meta_as_text },
}
