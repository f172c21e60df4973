// An execution engine that claims no file: Quarto asks it whether it claims a source before it
// parses that source, the one moment our check can come before Quarto's own parse (see
// scripts/lecturekit/course/readable.py). A lecture that cannot be read: its file:line and what is
// wrong, and exit 1, in place of Quarto's stack trace. Without the project's .venv (a fresh clone,
// before scripts/setup) nothing is checked here: the pre-render step sets it up and checks.
const root = decodeURIComponent(new URL("../../", import.meta.url).pathname);
let checked = false;
let failed = false;

function checkLectures() {
  if (checked) return;  // Quarto calls init each time it resolves the engines
  checked = true;
  const python = `${root}.venv/bin/python`;
  let run;
  try {
    run = new Deno.Command(python, {
      args: ["-m", "lecturekit.course.readable"],
      cwd: root,
      env: { PYTHONPATH: `${root}scripts` },
      stdout: "inherit",
      stderr: "inherit",
    }).outputSync();
  } catch (_err) {
    return;  // no venv yet
  }
  failed = run.code === 1;
}

// Called for the first source before Quarto parses it. An error without a message ends Quarto with
// exit 1 and its own clean-up, printing nothing more (an error thrown from init would be wrapped
// in one that prints a stack trace).
function claimsNothing(_file, _ext) {
  checkLectures();
  if (failed) throw new Error("");
  return false;
}

export default {
  name: "lecture-sources",
  defaultExt: ".qmd",
  defaultYaml: () => [],
  defaultContent: () => [],
  validExtensions: () => [],
  claimsFile: claimsNothing,
  claimsLanguage: (_language, _firstClass) => false,
  canFreeze: false,
  generatesFigures: false,
  launch: (_context) => {
    throw new Error("the lecture-sources engine claims no file");
  },
};
