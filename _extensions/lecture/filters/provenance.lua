-- The handout's cover names the render date and the versions the outputs came from. An executed
-- notebook carries both in its front matter (scripts/execute writes them); when Quarto executes a
-- .qmd itself they are taken here: today's date, and the versions of the Python Quarto ran.
local C = require("common")

local MONTHS = C.words.months

local PROBE = [[
import platform, importlib.metadata as m
parts = ["Python " + platform.python_version()]
for dist, name in (("torch", "PyTorch"), ("numpy", "NumPy")):
    try:
        import importlib; parts.append(name + " " + importlib.import_module(dist).__version__)
    except Exception:
        pass
print(" · ".join(parts))
]]

local function versions()
  local python = os.getenv("QUARTO_PYTHON") or "python3"
  local ok, out = pcall(pandoc.pipe, python, { "-c", PROBE }, "")
  if ok then return (out:gsub("%s+$", "")) end
end

-- Only the handout's cover names them; scripts/render passes both as metadata itself.
return {
  Meta = C.renderer("provenance", { default = function(meta) return nil end, typst = function(meta)
    if not C.quarto then return nil end
    if not meta["render-date"] then
      local day = os.date("!*t")
      meta["render-date"] = pandoc.MetaInlines(pandoc.Inlines(C.bn(day.day .. " " .. MONTHS[day.month] .. " " .. day.year)))
    end
    if not meta.versions then
      local text = versions()
      if text and text ~= "" then meta.versions = pandoc.MetaInlines(pandoc.Inlines(text)) end
    end
    return meta
  end }),
}
