-- Helpers shared by the lecture filters.
local M = {}

M.quarto = (quarto ~= nil) and (quarto.doc ~= nil)
-- The format this render writes: pandoc's writer, which is also the name of the kit's format record
-- (write/formats.py) and of Quarto's format.
M.format = FORMAT

-- The extension's folder, from this file's own path (under Quarto, PANDOC_SCRIPT_FILE is Quarto's
-- main filter by the time lecture.lua requires this module).
local extension_dir = debug.getinfo(1, "S").source:gsub("^@", ""):match("(.*[/\\])filters[/\\][^/\\]*$") or "./"
M.extension_dir = extension_dir

-- The Bengali words the products show, read from the one file the Python side reads too
-- (_extensions/lecture/words.json; lecturekit/words.py).
local function read_words()
  local f = assert(io.open(extension_dir .. "words.json", "r"))
  local text = f:read("a")
  f:close()
  return pandoc.json.decode(text, false)
end

M.words = read_words()
M.letters = M.words.letters

local BN = {}
do
  local n = 0
  for _, code in utf8.codes(M.words.digits) do
    BN[tostring(n)] = utf8.char(code)
    n = n + 1
  end
end

-- Western digits -> Bengali digits.
function M.bn(value)
  return (tostring(value):gsub("%d", BN))
end

function M.has_class(el, cls)
  for _, c in ipairs(el.classes or {}) do
    if c == cls then return true end
  end
  return false
end

-- Render blocks to a string of the given format's markup.
function M.to_format(blocks, fmt)
  local doc = pandoc.Pandoc(blocks)
  return pandoc.write(doc, fmt)
end

function M.inlines_to(inlines, fmt)
  return M.to_format({ pandoc.Plain(inlines) }, fmt):gsub("%s+$", "")
end

-- A Typst function call wrapped around pandoc-written content: `#name(args)[ ...blocks... ]`.
function M.typst_wrap(name, args, blocks)
  local out = { pandoc.RawBlock("typst", "#" .. name .. "(" .. (args or "") .. ")[") }
  for _, b in ipairs(blocks) do table.insert(out, b) end
  table.insert(out, pandoc.RawBlock("typst", "]"))
  return out
end

-- A Typst string literal.
function M.typst_string(text)
  return '"' .. text:gsub("\\", "\\\\"):gsub('"', '\\"'):gsub("\n", " ") .. '"'
end

-- ---- renderers per format ----------------------------------------------------------------------
-- A filter finds a block's meaning; how the block looks is a renderer of the format being written.
-- Each filter names its renderers per format, `{ revealjs = fn, typst = fn, default = fn }` (the
-- idea of quarto-cli's per-format renderers), and takes this render's renderer once, when it loads.
-- `default` is the format-neutral form. A further format brings its renderers in one file,
-- formats/<format>.lua, returning `{ <renderer name> = fn, ... }`: with its record in
-- write/formats.py, that is all a new format needs.
local function format_renderers(format)
  local path = extension_dir .. "formats/" .. format .. ".lua"
  local f = io.open(path, "r")
  if not f then return {} end
  f:close()
  return dofile(path)
end

local format_file  -- loaded at the first renderer asked for (its renderers may use this module)
local named = {}  -- every filter's renderer table, by renderer name

-- Another format's renderer of the same block, for a format file that draws a block as one of our
-- formats does and then adds to it: `C.renderer_of("stepper", "default")`.
function M.renderer_of(name, format)
  local renderers = named[name]
  return renderers and (renderers[format] or renderers.default)
end

function M.renderer(name, renderers)
  named[name] = renderers
  format_file = format_file or format_renderers(M.format)
  local fn = renderers[M.format] or format_file[name] or renderers.default
  if fn then return fn end
  return function(...)
    local args = { ... }
    local el = type(args[1]) == "table" and args[1] or nil
    M.fail(string.format("no '%s' renderer for format '%s' (formats/%s.lua names its renderers)",
      name, M.format, M.format), el)
  end
end

-- ---- failing with a location -----------------------------------------------------------------------

local function read_lines(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local lines = {}
  for line in f:lines() do table.insert(lines, line) end
  f:close()
  return lines
end

-- The files this render reads: the input (Quarto's .qmd, or scripts/render's markdown), and beside
-- a .qmd its included sections.
local function source_files()
  local files = {}
  local input = M.quarto and quarto.doc.input_file or (PANDOC_STATE and PANDOC_STATE.input_files[1])
  if not input then return files end
  table.insert(files, input)
  local dir = input:match("(.*[/\\])")
  if input:match("%.qmd$") and dir then
    local ok, names = pcall(pandoc.system.list_directory, dir)
    if ok then
      table.sort(names)
      for _, name in ipairs(names) do
        if name:match("%.qmd$") and dir .. name ~= input then table.insert(files, dir .. name) end
      end
    end
  end
  return files
end

-- Where a block with this id is written: "file:line", or nil.
local function locate(id)
  for _, path in ipairs(source_files()) do
    for n, line in ipairs(read_lines(path) or {}) do
      if line:find("#" .. id, 1, true) then return path .. ":" .. n end
    end
  end
end

-- Stop the render with a message naming the block (its id, where it is written, its first words).
function M.fail(message, el)
  local where = {}
  local id = el and el.identifier
  if id and id ~= "" then
    table.insert(where, "#" .. id)
    local at = locate(id)
    if at then table.insert(where, "at " .. at) end
  end
  if el and #where == 0 then
    local ok, text = pcall(pandoc.utils.stringify, el)
    if ok and text ~= "" then table.insert(where, "at \"" .. text:sub(1, 60) .. "\"") end
  end
  local located = #where > 0 and (" (" .. table.concat(where, " ") .. ")") or ""
  error("lecture filter: " .. message .. located, 0)
end

return M
