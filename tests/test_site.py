"""The course page (course/site/course_page.py + templates/course.html.j2), rendered without rendering any lecture:
grouping and order, each format's link from its record, products not made yet, escaping."""
import html.parser

from lecturekit.course.site import course_page
from lecturekit.write.formats import FORMATS
from lecturekit.project import Project


class _Page(html.parser.HTMLParser):
    """Headings, and per lecture (`li` id) its visible texts and links."""

    def __init__(self):
        super().__init__()
        self.headings, self.items, self._in, self._item = [], {}, None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "li":
            self._item = self.items.setdefault(attrs["id"], {"text": [], "links": []})
        elif tag == "a" and self._item is not None:
            self._item["links"].append(attrs["href"])
        self._in = tag

    def handle_endtag(self, tag):
        if tag == "li":
            self._item = None
        self._in = None

    def handle_data(self, data):
        if self._in == "h2":
            self.headings.append(data)
        elif self._item is not None and data.strip():
            self._item["text"].append(data)


def _page(project_builder, lectures, made=()):
    for name, front in lectures.items():
        project_builder.add_lecture(name, "# ক {#sec-a}\n", front=front)
    for path in made:
        target = project_builder.root / "_output" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"x")
    project = Project(project_builder.root)
    text = course_page.index_html(project, [(d, course_page.lecture_meta(d)) for d in project.lectures()])
    page = _Page()
    page.feed(text)
    return text, page


def test_lectures_grouped_by_module_in_episode_order(project_builder):
    _text, page = _page(project_builder, {
        "02-b": {"title": "খ", "module": 1, "episode": 2},
        "01-a": {"title": "ক", "module": 1, "episode": 1},
        "05-c": {"title": "গ", "module": 2, "episode": 5},
        "x-free": {"title": "মুক্ত"},
    })
    assert page.headings == ["মডিউল ১", "মডিউল ২", "অন্যান্য পর্ব"]
    assert list(page.items) == ["01-a", "02-b", "unwritten-05-c", "05-c", "x-free"]
    assert page.items["02-b"]["text"][0] == "পর্ব ০২"
    # The episodes between two lectures are named as not written yet, with no link.
    assert page.items["unwritten-05-c"] == {"text": ["পর্ব ০৩–০৪", "এখনও লেখা হয়নি"], "links": []}


def test_one_unwritten_episode_and_no_gap_without_one(project_builder):
    _text, page = _page(project_builder, {"01-a": {"title": "ক", "episode": 1}, "02-b": {"title": "খ", "episode": 2},
                                          "04-c": {"title": "গ", "episode": 4}})
    assert list(page.items) == ["01-a", "02-b", "unwritten-04-c", "04-c"]
    assert page.items["unwritten-04-c"]["text"] == ["পর্ব ০৩", "এখনও লেখা হয়নি"]


def test_links_come_from_the_format_records(project_builder):
    made = [f"01-a/{fmt.product}" for fmt in FORMATS.values()] + ["01-a/code.zip"]
    _text, page = _page(project_builder, {"01-a": {"title": "ক"}, "02-b": {"title": "খ"}}, made=made)
    assert page.items["01-a"]["links"] == [*(f"01-a/{fmt.product}" for fmt in FORMATS.values()), "01-a/code.zip"]
    for fmt in FORMATS.values():
        assert fmt.link_label in page.items["01-a"]["text"]
        # Not made yet: named, not linked; no code zip at all.
        assert f"{fmt.link_label}: এখনও তৈরি হয়নি" in page.items["02-b"]["text"]
    assert page.items["02-b"]["links"] == []


def test_titles_are_text(project_builder):
    text, page = _page(project_builder, {"01-a": {"title": "<b>ক & খ</b>", "title-en": "A <i>b</i>"}})
    assert "<b>" not in text and "<i>" not in text
    assert page.items["01-a"]["text"][1:3] == ["<b>ক & খ</b>", "A <i>b</i>"]
