-- Figure numbers "ছবি ৯.১" (episode.number, Bengali digits) and `@fig-` references.
-- Quarto numbers figures itself; this runs only under plain pandoc.
local C = require("common")

local numbers, episode = {}, nil

local function label(id)
  return "ছবি " .. C.bn((episode and (episode .. ".") or "") .. numbers[id])
end

return {
  Meta = function(meta)
    if meta.episode then episode = tonumber(pandoc.utils.stringify(meta.episode)) end
  end,
  Pandoc = function(doc)
    if C.quarto then return nil end
    local n = 0
    doc = doc:walk({
      Figure = function(fig)
        if fig.identifier:match("^fig%-") then
          n = n + 1
          numbers[fig.identifier] = n
          local caption = fig.caption.long[1]
          local prefix = { pandoc.Strong({ pandoc.Str(label(fig.identifier)) }), pandoc.Str(" — ") }
          if caption then
            for i = #prefix, 1, -1 do caption.content:insert(1, prefix[i]) end
          else
            fig.caption.long = { pandoc.Plain(prefix) }
          end
          return fig
        end
      end,
    })
    return doc:walk({
      Cite = function(cite)
        local id = cite.citations[1].id
        if id:match("^fig%-") then
          if not numbers[id] then C.fail("@" .. id .. " refers to no figure") end
          return pandoc.Link({ pandoc.Str(label(id)) }, "#" .. id)
        end
      end,
    })
  end,
}
