-- Helpers shared by the lecture filters.
local M = {}

M.quiz_key = pandoc.List()  -- filled by quiz.lua, emptied into the appendix by answers.lua

M.quarto = (quarto ~= nil) and (quarto.doc ~= nil)
M.slides = FORMAT:match("revealjs") ~= nil
M.handout = FORMAT:match("typst") ~= nil

local BN = { ["0"] = "০", ["1"] = "১", ["2"] = "২", ["3"] = "৩", ["4"] = "৪",
             ["5"] = "৫", ["6"] = "৬", ["7"] = "৭", ["8"] = "৮", ["9"] = "৯" }

-- Western digits -> Bengali digits.
function M.bn(value)
  return (tostring(value):gsub("%d", BN))
end

-- The Bengali words the filters write, in one place (the Python side's are in lecturekit/words.py).
M.words = {
  figure = "ছবি",
  answers = "উত্তরমালা",
  answer = "উত্তর",
  answer_in_appendix = "উত্তর: পরিশিষ্টে, ",
  quiz_answers = "নিজেকে যাচাই: উত্তর",
  question = "প্রশ্ন",
  line = "লাইন",
  part = "অংশ",
  episode = "পর্ব",
  of_episodes = "-এর মধ্যে",
  module = "মডিউল",
  months = { "জানুয়ারি", "ফেব্রুয়ারি", "মার্চ", "এপ্রিল", "মে", "জুন", "জুলাই", "আগস্ট",
    "সেপ্টেম্বর", "অক্টোবর", "নভেম্বর", "ডিসেম্বর" },
  -- exercise kinds (answers.lua), callout titles and boxes (blocks.lua)
  kinds = { exercise = "অনুশীলনী", discussion = "আলোচনার প্রশ্ন" },
  callouts = { note = "নোট", tip = "টিপ", warning = "সতর্কতা", important = "জরুরি", caution = "সাবধান" },
  boxes = { remember = "মনে রাখুন", glossary = "শব্দকোষ" },
  -- option letters for quiz choices
  letters = { "ক", "খ", "গ", "ঘ", "ঙ", "চ", "ছ", "জ" },
}
M.letters = M.words.letters

function M.has_class(el, cls)
  for _, c in ipairs(el.classes or {}) do
    if c == cls then return true end
  end
  return false
end

-- Render blocks to a string of the current output format's markup.
function M.to_format(blocks, fmt)
  fmt = fmt or (M.slides and "html" or "typst")
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

function M.fail(message)
  io.stderr:write("lecture filter: " .. message .. "\n")
  os.exit(1)
end

return M
