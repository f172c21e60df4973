-- What a lecture's markdown may put into the products is decided once, by the reader
-- (scripts/lecturekit/read/markup.py: raw HTML, script links, event handlers, files outside the
-- project, judged on pandoc's AST). scripts/render and `quarto render` of the project read every
-- lecture through it before anything is written. A `quarto render` of one lecture source (a draft:
-- Quarto executes it itself) asks the reader here (`python -m lecturekit.cli.source`: the source read
-- and its options checked as scripts/render does), before any filter writes a product from it: the
-- render stops with the reader's `file:line: message`.
local C = require("common")

local function lecture_source()
  if not C.quarto then return nil end
  local input = quarto.doc.input_file
  if input and input:match("%.qmd$") then return input end
  return nil
end

local function ask_reader(input)
  local python = C.extension_dir .. "../../.venv/bin/python"
  local ok, err = pcall(pandoc.pipe, python, { "-m", "lecturekit.cli.source", input }, "")
  if ok then return end
  local said = type(err) == "table" and err.output or tostring(err)
  said = tostring(said or ""):gsub("%s+$", "")
  if said == "" then said = "the reader could not be asked (" .. python .. "): " .. tostring(err) end
  -- Quarto's filters report an error() and go on: the render stops here, with the reader's line.
  io.stderr:write("error: " .. said .. "\n")
  os.exit(1)
end

return {
  Pandoc = function(doc)
    local input = lecture_source()
    if input then ask_reader(input) end
    return nil
  end,
}
