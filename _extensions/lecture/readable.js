// An execution engine that claims no file: Quarto loads it before it reads any source of the
// project, the one moment our check can come before Quarto's own parse (see
// scripts/lecturekit/course/readable.py). A lecture that cannot be read: its file:line and what is
// wrong, and exit 1, in place of Quarto's stack trace. Without the project's .venv (a fresh clone,
// before scripts/setup) nothing is checked here: the pre-render step sets it up and checks.
const root = decodeURIComponent(new URL("../../", import.meta.url).pathname);
let checked = false;

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
  if (run.code === 1) Deno.exit(1);
}

export default {
  name: "lecture-sources",
  defaultExt: ".qmd",
  defaultYaml: () => [],
  defaultContent: () => [],
  validExtensions: () => [],
  claimsFile: (_file, _ext) => false,
  claimsLanguage: (_language, _firstClass) => false,
  canFreeze: false,
  generatesFigures: false,
  init: (_quarto) => checkLectures(),
  launch: (_context) => {
    throw new Error("the lecture-sources engine claims no file");
  },
};
