"""The course index (`_output/index.html`, the one page students open) and each lecture's code zip.

A lecture's code is the front matter's `code:` (a path or a list of paths under `code/`) or else its
own folder `code/scripts/<lecture>/`; a lecture with neither has no zip (never another lecture's
scripts). Every package under `code/` those scripts import, directly or through another such
package, goes in too, so the scripts run as they are. The zip
holds `scripts/` and the packages side by side, as in `code/`. Zips are deterministic (sorted
entries, fixed timestamps and permissions): the same code gives the same bytes. Nothing is rewritten
when its bytes would not change.
"""
import ast
import base64
import hashlib
import html
import io
import os
import zipfile
from pathlib import Path

from . import frontmatter, qmd
from .writers import BENGALI_DIGITS

ZIP_NAME = "code.zip"
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
FONT = Path("node_modules/@fontsource-variable/noto-sans-bengali/files/noto-sans-bengali-bengali-wght-normal.woff2")


def bn_number(value):
    return str(value).translate(BENGALI_DIGITS)


def _python_files(folder):
    return sorted(p for p in Path(folder).rglob("*.py") if "__pycache__" not in p.parts)


def _imported_top_names(path):
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def lecture_code_files(project, lecture_dir, meta=None):
    """[(name inside the zip, path)] for one lecture, sorted; empty when it has no scripts."""
    code = project.code_dir
    meta = meta or {}
    if meta.get("code"):
        listed = meta["code"] if isinstance(meta["code"], list) else [meta["code"]]
        scripts = [p for entry in listed for p in
                   (_python_files(code / entry) if (code / entry).is_dir() else [code / entry])]
        arcname = lambda p: p.relative_to(code).as_posix()  # noqa: E731
    else:
        folder = code / "scripts" / Path(lecture_dir).name
        scripts = sorted(folder.glob("*.py")) if folder.is_dir() else []
        arcname = lambda p: "scripts/" + p.relative_to(folder).as_posix()  # noqa: E731
    if not scripts:
        return []
    files = {arcname(p): p for p in scripts if p.is_file()}
    packages = {p.name for p in code.iterdir() if p.is_dir() and (p / "__init__.py").exists()} if code.is_dir() else set()
    wanted, queue = set(), [p for p in files.values()]
    while queue:
        for name in _imported_top_names(queue.pop()) & packages:
            if name not in wanted:
                wanted.add(name)
                queue.extend(_python_files(code / name))
    for name in wanted:
        for path in sorted((code / name).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".pyo"):
                files[path.relative_to(code).as_posix()] = path
    return sorted(files.items())


def code_zip_bytes(files, prefix):
    """A deterministic zip: sorted entries under `prefix/`, fixed dates and modes; its comment is
    the digest of its contents, so an unchanged zip is recognised without rebuilding it."""
    digest = hashlib.sha256()
    contents = []
    for name, path in files:
        data = Path(path).read_bytes()
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
        contents.append((f"{prefix}/{name}", data))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in contents:
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            zf.writestr(info, data, compresslevel=9)
        zf.comment = digest.hexdigest().encode()
    return buffer.getvalue(), digest.hexdigest()


def files_digest(files):
    digest = hashlib.sha256()
    for name, path in files:
        digest.update(name.encode() + b"\0" + hashlib.sha256(Path(path).read_bytes()).digest())
    return digest.hexdigest()


def write_if_changed(path, data):
    """Write atomically, and only when the bytes differ; True when written."""
    path = Path(path)
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return True


def write_code_zip(project, lecture_dir, meta=None):
    """`_output/<lecture>/code.zip`; None when the lecture has no scripts. Skips unchanged zips."""
    files = lecture_code_files(project, lecture_dir, meta)
    target = project.output_dir / Path(lecture_dir).name / ZIP_NAME
    if not files:
        target.unlink(missing_ok=True)  # the lecture's scripts were removed: no stale zip stays listed
        return None
    try:
        with zipfile.ZipFile(target) as zf:
            if zf.comment.decode() == files_digest(files):
                return target
    except (OSError, zipfile.BadZipFile, UnicodeDecodeError):
        pass
    data, _ = code_zip_bytes(files, Path(lecture_dir).name)
    write_if_changed(target, data)
    return target


def lecture_meta(lecture_dir):
    """The front matter with the defaults the products use (episode from the folder's number …)."""
    index = Path(lecture_dir) / "index.qmd"
    meta, _body, _line = qmd.split_front_matter(qmd.read_source(index), index)
    return frontmatter.with_defaults(meta, lecture_dir)


CSS = """
@font-face { font-family: "Noto Sans Bengali Web"; font-weight: 100 900; font-display: swap;
  src: url(data:font/woff2;base64,{font}) format("woff2"); unicode-range: U+0964-0965, U+0980-09FE, U+200C-200D, U+25CC; }
:root { color-scheme: light; }
body { font-family: "Noto Sans Bengali Web", "Noto Sans Bengali", "Noto Serif Bengali", "Vrinda", "Shonar Bangla",
  "Nirmala UI", system-ui, sans-serif; margin: 0 auto; max-width: 52rem; padding: 1.5rem 1rem 3rem;
  line-height: 1.6; color: #1d232a; background: #fbfaf7; }
h1 { font-size: 1.9rem; margin: 0 0 .25rem; }
.lead { color: #55606b; margin: 0 0 1.5rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .5rem; padding-bottom: .2rem; border-bottom: 2px solid #d9d3c7; }
ol { list-style: none; padding: 0; margin: 0; }
li { display: grid; grid-template-columns: 4.5rem 1fr; gap: .2rem 1rem; padding: .75rem 0;
  border-bottom: 1px solid #ebe6dc; }
.ep { font-weight: 700; color: #8a4b12; white-space: nowrap; }
.title { font-size: 1.1rem; font-weight: 600; }
.en { display: block; font-size: .85rem; color: #6b7580; font-weight: 400; }
.links { grid-column: 2; display: flex; flex-wrap: wrap; gap: .5rem; }
.links a, .links span { padding: .15rem .7rem; border-radius: 1rem; border: 1px solid #c9bfae;
  text-decoration: none; color: #1f4f82; background: #fff; font-size: .95rem; }
.links a:hover, .links a:focus { background: #1f4f82; color: #fff; }
.links span { color: #8c949c; border-style: dashed; }
footer { margin-top: 2rem; font-size: .85rem; color: #6b7580; }
"""


def _lecture_item(project, lecture_dir, meta):
    name = Path(lecture_dir).name
    out = project.output_dir / name
    links = []
    for label, file in (("স্লাইড", "slides.html"), ("হ্যান্ডআউট (PDF)", "handout.pdf"), ("কোড (zip)", ZIP_NAME)):
        if (out / file).exists():
            links.append(f'<a href="{html.escape(name)}/{file}">{label}</a>')
        elif file != ZIP_NAME:
            links.append(f'<span title="এখনও তৈরি হয়নি">{label}: এখনও তৈরি হয়নি</span>')
    episode = meta.get("episode")
    ep = f"পর্ব {bn_number(f'{episode:02d}' if isinstance(episode, int) else episode)}" if episode is not None else ""
    title = html.escape(str(meta.get("title") or name))
    sub = meta.get("title-en")
    sub_html = f'<span class="en" lang="en">{html.escape(str(sub))}</span>' if sub else ""
    return (f'<li id="{html.escape(name)}"><span class="ep">{ep}</span>'
            f'<span class="title">{title}{sub_html}</span>'
            f'<span class="links">{" ".join(links)}</span></li>')


def index_html(project, lectures):
    """The page: lectures grouped by module, in episode order. `lectures`: [(folder, meta)]."""
    font_path = project.root / FONT
    font = base64.b64encode(font_path.read_bytes()).decode() if font_path.exists() else ""
    css = CSS.replace("{font}", font) if font else CSS.split("\n", 3)[3]
    course = next((str(m["course"]) for _d, m in lectures if m.get("course")), frontmatter.COURSE)
    total = next((m["episodes"] for _d, m in lectures if m.get("episodes")), None)

    def order(item):
        meta = item[1]
        return (meta.get("module") if isinstance(meta.get("module"), int) else 10**6,
                meta.get("episode") if isinstance(meta.get("episode"), (int, float)) else 10**6, item[0].name)

    groups = {}
    for lecture_dir, meta in sorted(lectures, key=order):
        groups.setdefault(meta.get("module"), []).append(_lecture_item(project, lecture_dir, meta))
    sections = []
    for module, items in groups.items():
        heading = f"মডিউল {bn_number(module)}" if module is not None else "অন্যান্য পর্ব"
        sections.append(f"<section><h2>{heading}</h2>\n<ol>\n" + "\n".join(items) + "\n</ol></section>")
    count = f"{bn_number(len(lectures))}টি পর্ব তৈরি" + (f", মোট {bn_number(total)}টির মধ্যে" if total else "")
    return f"""<!DOCTYPE html>
<html lang="bn">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(course)}: সব পর্ব</title>
<style>{css}</style>
</head>
<body>
<header><h1>{html.escape(course)}</h1>
<p class="lead">প্রতিটি পর্বের স্লাইড, ছাপার উপযোগী হ্যান্ডআউট আর নিজে চালানোর কোড। {count}।</p></header>
<main>
{chr(10).join(sections)}
</main>
<footer>কোডের zip খুলে <code>scripts/</code> ফোল্ডারের যেকোনো script চালান, যেমন <code>python scripts/01_….py</code>; দরকারি package পাশেই আছে। ইন্টারনেট ছাড়াও এই পাতা আর স্লাইড খোলে।</footer>
</body>
</html>
"""


def build_site(project, lecture_dirs=None):
    """Every lecture's code zip, then the index page listing every lecture of the project."""
    lectures = [(d, lecture_meta(d)) for d in (lecture_dirs or project.lectures())]
    zips = [write_code_zip(project, d, meta) for d, meta in lectures]
    page = project.output_dir / "index.html"
    write_if_changed(page, index_html(project, lectures).encode("utf-8"))
    return page, [z for z in zips if z]
