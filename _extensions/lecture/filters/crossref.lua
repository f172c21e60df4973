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
        if not id:match("^fig%-") then return nil end
        -- Bengali case endings join the id: "@fig-tree-এ" is figure fig-tree plus "-এ".
        local suffix = ""
        if not numbers[id] then
          local best = ""
          for known in pairs(numbers) do
            if id:sub(1, #known + 1) == known .. "-" and #known > #best then best = known end
          end
          if best ~= "" then suffix, id = id:sub(#best + 1), best end
        end
        if not numbers[id] then C.fail("@" .. cite.citations[1].id .. " refers to no figure") end
        local out = { pandoc.Link({ pandoc.Str(label(id)) }, "#" .. id) }
        if suffix ~= "" then table.insert(out, pandoc.Str(suffix)) end
        return out
      end,
    })
  end,
}
