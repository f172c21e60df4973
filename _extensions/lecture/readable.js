// An execution engine for the lectures Quarto cannot read. Quarto asks each engine whether it claims
// a source before it parses that source, and it reads every source the project's `render:` lists
// before the pre-render step: a malformed front matter or a missing include there would end the
// whole render in Quarto's JavaScript stack trace. So the first question runs our check
// (scripts/lecturekit/course/quarto/readable.py) once, and this engine claims every file of a lecture that
// cannot be read: Quarto leaves it unparsed, pre-render executes the good lectures and lists them
// alone, and post-render lists the broken one with its error on the course page and in the summary
// (exit 1). A render that names a broken lecture's own file gets its file:line and what is wrong,
// one line, exit 1.
const root = decodeURIComponent(new URL("../../", import.meta.url).pathname);
const python = `${root}.venv/bin/python`;
let broken = null;  // {"lectures/<name>": "file:line: what is wrong"}

function pythonMissing() {
  try {
    return !Deno.statSync(python).isFile;
  } catch (_err) {
    return true;
  }
}

// Ends Quarto with exit 1 and its own clean-up, printing nothing more: an error without a message.
// (One thrown with a message, or from init, prints Quarto's stack trace.)
// Quarto asks about several files at once: the line is said once.
let said = false;
function stop(line) {
  if (line && !said) console.error(line);
  said = true;
  throw new Error("");
}

function checkLectures() {
  if (broken !== null) return broken;  // Quarto resolves the engines more than once
  if (pythonMissing()) {
    stop(`error: ${python.slice(root.length)} not found: the course's Python (its checks and executor) is ` +
         "not set up; run scripts/setup at the project root once, then quarto render again");
  }
  const run = new Deno.Command(python, {
    args: ["-m", "lecturekit.course.quarto.readable", "--json"],
    cwd: root,
    env: { PYTHONPATH: `${root}scripts` },
    stdout: "piped",
    stderr: "inherit",
  }).outputSync();
  if (run.code !== 0) stop("");  // readable.py said what is wrong (no project, a broken venv)
  broken = JSON.parse(new TextDecoder().decode(run.stdout));
  return broken;
}

function lectureOf(file) {
  const path = file.startsWith("/") ? file : `${Deno.cwd()}/${file}`;
  const inside = path.startsWith(root) ? path.slice(root.length) : null;
  if (inside === null) return null;
  return Object.keys(checkLectures()).find((folder) => inside.startsWith(`${folder}/`)) ?? null;
}

// A broken lecture's file that the command itself names (`quarto render lectures/<it>/index.qmd`)
// is what the author asked for: its error, before Quarto would read it for its target.
function named(folder) {
  return Deno.args.slice(1).some((arg) => lectureOf(arg) === folder);
}

function claimsFile(file, _ext) {
  const folder = lectureOf(file);
  if (folder !== null && named(folder)) stop(`error: ${checkLectures()[folder]}`);
  return folder !== null;
}

export default {
  name: "lecture-sources",
  defaultExt: ".qmd",
  defaultYaml: () => [],
  defaultContent: () => [],
  validExtensions: () => [],
  claimsFile,
  claimsLanguage: (_language, _firstClass) => false,
  canFreeze: false,
  generatesFigures: false,
  launch: (_context) => ({
    name: "lecture-sources",
    canFreeze: false,
    // Quarto asks for the target only of a file it renders: the broken lecture was named.
    target: (file) => stop(`error: ${checkLectures()[lectureOf(file)]}`),
    partitionedMarkdown: (file) => stop(`error: ${checkLectures()[lectureOf(file)]}`),
    execute: () => stop("error: the lecture-sources engine executes nothing"),
    dependencies: () => ({ includes: {} }),
    postprocess: () => Promise.resolve(),
  }),
};
