-- The deck's title slide: course, "পর্ব ০৯ · ৯১-এর মধ্যে · মডিউল ২", the Bangla title and subtitle,
-- and the English title. The revealjs template (pandoc's and Quarto's) builds the title slide from
-- title, subtitle, author and date; the course goes in as the author line and the episode line as
-- the date, each wrapped in a span the theme styles. The handout's cover reads the same fields itself.
-- Parts: every numbered level-1 heading is a part of the lecture, "অংশ ০" … in document order. The
-- number is real text in both products (slides say "অংশ ৫" and the handout's heading must match).
local C = require("common")

local function str(meta, key)
  return meta[key] and pandoc.utils.stringify(meta[key]) or nil
end

local function span(text, class, lang)
  local attrs = lang and { lang = lang } or {}
  return pandoc.Inlines({ pandoc.Span(pandoc.Inlines(text), pandoc.Attr("", { class }, attrs)) })
end

local part = -1

-- A part's number in front of its heading.
local part_number = C.renderer("part_number", {
  revealjs = function(header, label)
    -- Its own line on the divider (theme.css); a space keeps copied text readable: "অংশ ৫ buffer".
    header.content:insert(1, pandoc.Space())
    header.content:insert(1, pandoc.Span({ pandoc.Str(label) }, pandoc.Attr("", { "part-number" })))
    return header
  end,
  default = function(header, label)
    header.content:insert(1, pandoc.Space())
    header.content:insert(1, pandoc.Str(label .. " ·"))
    return header
  end,
})

local function number_part(header)
  if header.level ~= 1 or header.classes:includes("unnumbered") then return nil end
  part = part + 1
  return part_number(header, C.words.part .. " " .. C.bn(part))
end

-- The deck's title slide; a page's cover (handout.typ) reads the front matter itself.
local title_page = C.renderer("title_page", {
  default = function(meta) return nil end,
  revealjs = function(meta)
    if not meta.title then return nil end
    local course, episode = str(meta, "course"), str(meta, "episode")
    if course and not meta.author then
      meta.author = pandoc.MetaInlines(span(course, "title-course"))
      -- Quarto's title slide lists `by-author` (it normalised the authors before this filter ran).
      if C.quarto then
        meta["by-author"] = pandoc.MetaList({ pandoc.MetaMap({
          name = pandoc.MetaMap({ literal = pandoc.MetaInlines(span(course, "title-course")) }) }) })
      end
    end
    if episode and not meta.date then
      local parts = { C.words.episode .. " " .. C.bn(string.format("%02d", tonumber(episode) or 0)) }
      if meta.episodes then table.insert(parts, C.bn(str(meta, "episodes")) .. C.words.of_episodes) end
      if meta.module then table.insert(parts, C.words.module .. " " .. C.bn(str(meta, "module"))) end
      meta.date = pandoc.MetaInlines(span(table.concat(parts, " · "), "title-episode"))
    end
    local english = str(meta, "title-en")
    if english then
      local subtitle = meta.subtitle and pandoc.Inlines(meta.subtitle) or pandoc.Inlines({})
      local joined = pandoc.Inlines({ pandoc.Span(subtitle, pandoc.Attr("", { "subtitle-bn" })),
        pandoc.LineBreak() })
      joined:extend(span(english, "title-en", "en"))
      meta.subtitle = pandoc.MetaInlines(joined)
    end
    return meta
  end,
})

return {
  Header = number_part,
  Meta = title_page,
}
