// The course's search index, built when the course page is written (course/site/pages.py runs it):
// stdin the documents [{id, title, where, text}], stdout `search-index.js`, a script that sets
// COURSE_SEARCH_INDEX (a page opened from disk loads a script where it may not fetch a file).
const path = require("path");
// The CommonJS build of the same library the pages load (assets/minisearch.js, its UMD build).
const MiniSearch = require(path.join(__dirname, "..", "..", "..", "node_modules", "minisearch", "dist", "cjs", "index.cjs"));
const CourseSearch = require("./search.js");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const index = new MiniSearch(CourseSearch.options);
  index.addAll(JSON.parse(input));
  process.stdout.write("window.COURSE_SEARCH_INDEX = " + JSON.stringify(index) + ";\n");
});
