-- The handout's figures are PDF: Typst mangles Bengali text inside SVG. A figure output carries
-- image/svg+xml and application/pdf; scripts/render picks the PDF itself, but Quarto's Typst output
-- always takes the SVG (its display priority has no PDF for Typst). This finds the PDF rendering of
-- the same output in the notebook Quarto rendered and writes it beside the SVG Quarto extracted.
local M = {}

local notebook  -- decoded once per render

local function read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local data = f:read("a")
  f:close()
  return data
end

-- The notebook behind this render: the .ipynb itself, or the one Quarto executed a .qmd into.
local function load_notebook()
  if notebook ~= nil then return notebook end
  notebook = false
  local input = quarto.doc.input_file or ""
  local candidates = { input }
  local stem = input:gsub("%.[^./]+$", "")
  table.insert(candidates, stem .. ".quarto_ipynb")
  for _, path in ipairs(candidates) do
    if path:match("ipynb$") then
      local text = read(path)
      if text then
        notebook = pandoc.json.decode(text, false)
        return notebook
      end
    end
  end
  return notebook
end

local function joined(value)
  if type(value) == "table" then return table.concat(value) end
  return value
end

local function label_of(cell)
  for line in joined(cell.source or ""):gmatch("[^\n]+") do
    local label = line:match("^#|%s*label:%s*(%S+)")
    if label then return label end
  end
  local meta = cell.metadata and cell.metadata.lecture
  return meta and meta.label or nil
end

-- Quarto names an extracted output "<label>-output-<n>" or "cell-<index>-output-<n>": the notebook
-- output it came from (the n-th output if it has `mime`, else the n-th output that has it).
local function find_output(name, mime)
  local nb = load_notebook()
  if not nb then return nil end
  local owner, n = name:match("^(.-)%-output%-(%d+)$")
  if not owner then return nil end
  n = tonumber(n)
  -- An unlabelled cell is "cell-<n + 1>" for the n-th code cell (Quarto counts from 1, then adds 1).
  local index = tonumber(owner:match("^cell%-(%d+)$"))
  local code_cells = 0
  for _, cell in ipairs(nb.cells or {}) do
    if cell.cell_type == "code" then code_cells = code_cells + 1 end
    if cell.cell_type == "code" and (label_of(cell) == owner or (index and code_cells + 1 == index)) then
      local outputs = cell.outputs or {}
      local with_mime = {}
      for _, out in ipairs(outputs) do
        if out.data and out.data[mime] then table.insert(with_mime, out) end
      end
      return outputs[n] and outputs[n].data and outputs[n].data[mime] and outputs[n]
        or with_mime[n] or with_mime[1]
    end
  end
  return nil
end

local function output_name(src)
  return src:match("([^/\\]+)%.[%a]+$")
end

-- The output's own description (text/plain), as scripts/render uses it for alt text: modtree's
-- figures describe the tree there; matplotlib's "<Figure size …>" describes nothing.
function M.description_for(src)
  local name = output_name(src)
  local out = name and find_output(name, "image/svg+xml")
  local text = out and joined(out.data["text/plain"] or "") or ""
  if text == "" or text:match("^<Figure") then return nil end
  return text
end

function M.pdf_for(src)
  if not src:match("%.svg$") then return src end
  local out = find_output(output_name(src), "application/pdf")
  if not out then return src end
  local payload = joined(out.data["application/pdf"])
  local _, contents = pandoc.mediabag.fetch("data:application/pdf;base64," .. payload:gsub("%s", ""))
  local target = src:gsub("%.svg$", ".pdf")
  local f = io.open(target, "wb")
  if not f then return src end
  f:write(contents)
  f:close()
  return target
end

return M
