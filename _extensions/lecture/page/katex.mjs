// The page's formulas, typeset when the page is written (formats/html.lua runs this once per page):
// stdin [{tex, display}], stdout {html: [...]} or {error, index}. KaTeX from the project's
// node_modules (package-lock.json), untrusted: no \href, \url or HTML extensions.
import katex from "../../../node_modules/katex/dist/katex.mjs";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const html = [];
let failed = null;
JSON.parse(input).forEach(({ tex, display }, index) => {
  if (failed) return;
  try {
    html.push(katex.renderToString(tex, { displayMode: display, throwOnError: true, trust: false,
                                         output: "htmlAndMathml" }));
  } catch (err) {
    failed = { error: String(err.message || err), index };
  }
});
process.stdout.write(JSON.stringify(failed || { html }));
