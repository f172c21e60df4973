// The course search (MiniSearch): how text is split into words and how a query is matched, shared
// by the index build (node, when the course page is written: build-search.cjs) and the pages (the
// browser), so that a query is split as the text was.
(function (root, factory) {
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.CourseSearch = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";
  // A word: letters with their marks (a Bengali vowel sign or hasanta is a mark, never a break) and
  // digits; `_` and `.` inside a name keep it whole (state_dict, nn.Module, torch.load), and the
  // name is indexed by its parts too. Hyphens, dandas and spaces separate: "model-এর" is "model", "এর".
  var WORD = /[\p{L}\p{M}\p{N}_]+(?:\.[\p{L}\p{M}\p{N}_]+)*/gu;
  var BENGALI_DIGITS = "০১২৩৪৫৬৭৮৯";

  function tokenize(text) {
    var tokens = [];
    (text.normalize("NFC").match(WORD) || []).forEach(function (word) {
      tokens.push(word);
      if (/[._]/.test(word)) {
        word.split(/[._]+/).forEach(function (part) { if (part && part !== word) tokens.push(part); });
      }
    });
    return tokens;
  }

  // Lower case, and one spelling of every digit ("২০৯" finds 209).
  function processTerm(term) {
    return term.toLowerCase().replace(/[০-৯]/g, function (d) { return String(BENGALI_DIGITS.indexOf(d)); });
  }

  function digits(text) {
    return text.replace(/[0-9]/g, function (d) { return BENGALI_DIGITS[+d]; });
  }

  var options = {
    fields: ["title", "text"],
    storeFields: ["title", "where"],
    tokenize: tokenize,
    processTerm: processTerm,
    searchOptions: {
      boost: { title: 3 },
      // Bengali words take their endings after the stem: "মডিউল" finds "মডিউলের".
      prefix: true,
      // A typo in a longer Latin name (staet_dict) still finds it; Bengali is matched as typed.
      fuzzy: function (term) { return term.length > 4 && /^[a-z0-9_.]+$/.test(term) ? 0.2 : false; },
      combineWith: "AND",
    },
  };

  function load(json) {
    return MiniSearch.loadJS(json, options);
  }

  function search(index, query) {
    if (!query.trim()) return [];
    return index.search(query.normalize("NFC"));
  }

  return { options: options, tokenize: tokenize, processTerm: processTerm, digits: digits, load: load, search: search };
});
