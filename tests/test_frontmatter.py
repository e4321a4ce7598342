"""Reading front matter: every kind of broken input comes back as a ReadProblem with a line, never raises."""

from __future__ import annotations

import importlib
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from aidlc.bank import frontmatter, yamlio
from aidlc.bank.frontmatter import ProblemKind
from aidlc.model.artifacts import Story

STORY = "---\nid: 001-a\nstatus: draft\nrequirements:\n  - FR-1\n  - NFR-2\nunit: [u-1, u-2]\n---\n\n# Title\nbody\n"


def split(text: str) -> frontmatter.Document:
    return frontmatter.split(text, "x.md")


# --- decoding ------------------------------------------------------------------------------------


def test_decode_strips_a_byte_order_mark() -> None:
    text, problem = frontmatter.decode("\ufeff---\nid: x\n---\n".encode(), "x.md")
    assert problem is None
    assert text == "---\nid: x\n---\n"


def test_decode_reports_line_and_offset_of_the_first_bad_byte() -> None:
    data = b"---\nid: x\n---\ncaf\xe9\n"
    text, problem = frontmatter.decode(data, "x.md")
    assert text is None
    assert problem is not None
    assert problem.kind == ProblemKind.not_utf8
    assert problem.line == 4
    assert problem.message == "byte 0xe9 at offset 17 is not UTF-8"


def test_decode_rejects_utf16() -> None:
    big_endian = b"\xfe\xff" + "---\n".encode("utf-16-be")
    for data, mark in (("---\nid: x\n".encode("utf-16"), "FF FE"), (big_endian, "FE FF")):
        _text, problem = frontmatter.decode(data, "x.md")
        assert problem is not None and problem.kind == ProblemKind.not_utf8 and problem.line == 1
        assert f"the file is UTF-16 (it starts with the byte order mark {mark}), not UTF-8" in problem.message


# --- splitting -----------------------------------------------------------------------------------


def test_split_reads_meta_body_and_body_start() -> None:
    doc = split(STORY)
    assert doc.problem is None
    assert doc.meta == {"id": "001-a", "status": "draft", "requirements": ["FR-1", "NFR-2"], "unit": ["u-1", "u-2"]}
    assert doc.body == "\n# Title\nbody\n"
    assert doc.body_start == 9
    assert STORY.splitlines()[doc.body_start - 1] == ""
    assert STORY.splitlines()[doc.body_start] == "# Title"


def test_no_front_matter_is_all_body() -> None:
    doc = split("# Just a heading\n\ntext\n")
    assert doc.meta is None and doc.problem is None
    assert doc.body_start == 1 and doc.body.startswith("# Just")


@pytest.mark.parametrize("text", ["", "\n", "----\nid: x\n----\n", "text\n---\nid: x\n---\n"])
def test_text_that_does_not_open_with_a_fence_has_no_front_matter(text: str) -> None:
    doc = split(text)
    assert doc.meta is None and doc.problem is None


def test_crlf_line_endings_give_the_same_meta_and_lines() -> None:
    doc = split(STORY.replace("\n", "\r\n"))
    assert doc.problem is None
    assert doc.meta == split(STORY).meta
    assert doc.body_start == 9
    assert doc.line_of("status") == 3
    assert doc.line_of_item("requirements", "NFR-2") == 6


def test_fences_with_trailing_blanks_open_and_close() -> None:
    doc = split("--- \nid: x\n---  \nbody\n")
    assert doc.problem is None
    assert doc.meta == {"id": "x"}
    assert doc.body == "body\n"


def test_only_the_first_closing_fence_ends_the_front_matter() -> None:
    doc = split("---\nid: x\n---\nbody\n---\nmore\n")
    assert doc.meta == {"id": "x"}
    assert doc.body == "body\n---\nmore\n"


@pytest.mark.parametrize(("text", "cut"), [
    ("---\nid: x\n---\nbody\n", ("id: x\n", "body\n", 4)),  # the usual file, read without the general search
    ("---\n---\nbody", ("", "body", 3)),
    ("---\nid: x\n---", ("id: x\n", "", 4)),  # the closing line at the end of the file
    ("---\nid: x\n---  \nbody", ("id: x\n", "body", 4)),
    ("---\nid: x\n---\r\nbody", ("id: x\n", "body", 4)),
    ("---\nid: x\n----\ny: 1\n---\nbody", ("id: x\n----\ny: 1\n", "body", 6)),  # '----' is not a fence
    ("---\nid: x\n--- a\n---\nbody", ("id: x\n--- a\n", "body", 5)),
    ("---\nid: x\n----", (None, "---\nid: x\n----", 1)),
])
def test_the_first_bare_fence_line_closes(text: str, cut: tuple[str | None, str, int]) -> None:
    assert frontmatter.cut(text) == cut


@pytest.mark.parametrize("text", ["---\nid: x\nstatus: draft\n", "---", "--- \n", "---\nid: x"])
def test_unclosed_front_matter(text: str) -> None:
    doc = split(text)
    assert doc.problem is not None
    assert doc.problem.kind == ProblemKind.unclosed
    assert doc.problem.line == 1
    assert doc.meta is None


@pytest.mark.parametrize("front", ["", "\n", "~\n", "null\n", "# only a comment\n"])
def test_empty_front_matter_is_an_empty_mapping(front: str) -> None:
    doc = split(f"---\n{front}---\nbody\n")
    assert doc.problem is None
    assert doc.meta == {}


@pytest.mark.parametrize(("front", "found"), [("- a\n- b\n", "list"), ("just words\n", "str"), ("42\n", "int")])
def test_front_matter_that_is_not_a_mapping(front: str, found: str) -> None:
    doc = split(f"---\n{front}---\n")
    assert doc.meta is None
    assert doc.problem is not None
    assert doc.problem.kind == ProblemKind.not_mapping
    assert doc.problem.line == 2
    assert doc.problem.message == f"expected a mapping of keys, found {found}"


@pytest.mark.parametrize(
    ("front", "line", "words"),
    [
        ("id: x\nstatus: draft\nunit: a: b\n", 4, "mapping values are not allowed"),
        ("id: x\nrequirements: [FR-1\n", 3, ""),
        ("id: x\nstatus: draft\n\tunit: a\n", None, ""),
        ("id: x\nstatus: draft\nid: y\n", 4, "duplicate"),
        ('id: "x\n', 2, ""),
    ],
    ids=["colon", "unclosed-bracket", "tab", "duplicate-key", "unclosed-quote"],
)
def test_bad_yaml_is_a_problem_with_the_file_line(front: str, line: int | None, words: str) -> None:
    doc = split(f"---\n{front}---\nbody\n")
    assert doc.meta is None
    assert doc.problem is not None
    assert doc.problem.kind == ProblemKind.bad_yaml
    assert doc.problem.message.startswith("invalid YAML: ")
    assert "\n" not in doc.problem.message
    assert words in doc.problem.message
    if line is not None:
        assert doc.problem.line == line
    else:  # a tab: the parser names the line of the scalar it was reading or the tab's own
        assert doc.problem.line in (3, 4)


@pytest.mark.parametrize(
    "front",
    [
        "a: " + "9" * 5000 + "\n",  # Python refuses to convert a 5,000-digit integer
        "a: " + "[" * 5000 + "]" * 5000 + "\n",  # nesting deeper than the parser allows
        "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
        "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
        "g: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n",  # a billion laughs
        'a: "\\ud800"\n',  # a lone surrogate
        "a: !!python/object/apply:os.system [echo hi]\n",
    ],
    ids=["huge-int", "deep-nesting", "alias-bomb", "surrogate", "python-tag"],
)
def test_hostile_yaml_never_raises(front: str) -> None:
    doc = split(f"---\n{front}---\n")
    if doc.problem is not None:
        assert doc.problem.kind == ProblemKind.bad_yaml
        assert doc.meta is None
    else:  # a parser that accepts it must at least hand back data, not run it
        assert isinstance(doc.meta, dict)


def test_huge_value_is_read_whole() -> None:
    doc = split("---\nid: " + "x" * 1_000_000 + "\n---\n")
    assert doc.problem is None
    assert doc.meta is not None and len(doc.meta["id"]) == 1_000_000


def test_tabs_inside_values_are_fine() -> None:
    doc = split('---\nid: "a\\tb"\nnote: a\tb\n---\n')
    assert doc.problem is None
    assert doc.meta == {"id": "a\tb", "note": "a\tb"}


def test_timestamps_stay_text_for_the_models_to_read() -> None:
    """YAML 1.2 has no timestamp type: both parsers hand back the text, the models parse it."""
    doc = split("---\ncreated: 2026-11-30T08:00:00Z\nbare: 2026-11-30\n---\n")
    assert doc.meta == {"created": "2026-11-30T08:00:00Z", "bare": "2026-11-30"}
    assert Story.model_validate({"id": "s", "unit": "u", "intent": "i", "status": "draft", "priority": "must",
                                 "created": doc.meta["created"]}).created == datetime(2026, 11, 30, 8, tzinfo=UTC)


# --- line numbers --------------------------------------------------------------------------------


def test_line_of_keys() -> None:
    doc = split(STORY)
    assert doc.line_of("id") == 2
    assert doc.line_of("status") == 3
    assert doc.line_of("unit") == 7
    assert doc.line_of("missing") == 1  # the opening fence: where a missing key belongs
    assert doc.line_of(None) == 2


def test_line_of_item_finds_block_and_flow_list_items() -> None:
    doc = split(STORY)
    assert doc.line_of_item("requirements", "FR-1") == 5
    assert doc.line_of_item("requirements", "NFR-2") == 6
    assert doc.line_of_item("requirements", "FR-9") == 4  # not there: the key's line
    assert doc.line_of_item("unit", "u-2") == 7
    assert doc.line_of_item("missing", "x") == 1


def test_line_of_item_matches_whole_names_only() -> None:
    doc = split("---\nstories:\n  - 001-a-b\n  - 001-a\n---\n")
    assert doc.line_of_item("stories", "001-a") == 4
    assert doc.line_of_item("stories", "001-a-b") == 3


def test_line_of_item_stops_at_the_next_key() -> None:
    doc = split("---\nstories:\n  - a\nother:\n  - b\n---\n")
    assert doc.line_of_item("stories", "b") == 2


# --- files ---------------------------------------------------------------------------------------


def test_read_missing_file(tmp_path: Path) -> None:
    doc = frontmatter.read(tmp_path / "nope.md", "nope.md")
    assert doc.problem is not None and doc.problem.kind == ProblemKind.missing and doc.problem.line is None


def test_read_unreadable_file_is_a_problem(tmp_path: Path) -> None:
    target = tmp_path / "locked.md"
    target.mkdir()  # opening a directory for reading fails with a real OSError, even for root
    doc = frontmatter.read(target, "locked.md")
    assert doc.problem is not None
    assert doc.problem.kind == ProblemKind.unreadable
    assert doc.problem.message == "Is a directory"


def test_read_a_directory_is_a_problem(tmp_path: Path) -> None:
    doc = frontmatter.read(tmp_path, "dir.md")
    assert doc.problem is not None and doc.problem.kind == ProblemKind.unreadable


def test_read_yaml_file_lines_start_at_one(tmp_path: Path) -> None:
    path = tmp_path / "project.yaml"
    path.write_text("project_type: cli\ninitialized_at: 2026-11-30T08:00:00Z\n")
    doc = frontmatter.read_yaml(path, "project.yaml")
    assert doc.problem is None
    assert doc.meta is not None and doc.meta["project_type"] == "cli"
    assert doc.line_of("project_type") == 1
    assert doc.line_of("initialized_at") == 2


@pytest.mark.parametrize(
    "text",
    [
        "---\nproject_type: cli\n",  # YAML's own document marker
        "---\nproject_type: cli\n---\n",  # fenced like Markdown front matter
        "\ufeffproject_type: cli\n",
        "project_type: cli\r\n",
    ],
    ids=["doc-marker", "fenced", "bom", "crlf"],
)
def test_read_yaml_accepts_the_forms_people_write(tmp_path: Path, text: str) -> None:
    path = tmp_path / "project.yaml"
    path.write_bytes(text.encode())
    doc = frontmatter.read_yaml(path, "project.yaml")
    assert doc.problem is None
    assert doc.meta == {"project_type": "cli"}
    assert doc.line_of("project_type") == (2 if text.startswith("---") else 1)


def test_read_yaml_bad_yaml_line_is_the_file_line(tmp_path: Path) -> None:
    path = tmp_path / "project.yaml"
    path.write_text("project_type: cli\nname: [x\n")
    doc = frontmatter.read_yaml(path, "project.yaml")
    assert doc.problem is not None and doc.problem.kind == ProblemKind.bad_yaml and doc.problem.line == 2


# --- the PyYAML fallback behaves the same where it matters ---------------------------------------


@pytest.fixture
def pyyaml_only(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setitem(sys.modules, "yaml_rs", None)  # import yaml_rs now raises ImportError
    importlib.reload(yamlio)
    assert yamlio._fast is None
    yield
    monkeypatch.undo()
    importlib.reload(yamlio)


@pytest.mark.usefixtures("pyyaml_only")
def test_pyyaml_fallback_parses_and_reports() -> None:
    assert split(STORY).meta == {"id": "001-a", "status": "draft", "requirements": ["FR-1", "NFR-2"],
                                 "unit": ["u-1", "u-2"]}
    bad = split("---\nid: x\nunit: a: b\n---\n")
    assert bad.problem is not None and bad.problem.kind == ProblemKind.bad_yaml and bad.problem.line == 3
    hostile = split("---\na: " + "[" * 5000 + "]" * 5000 + "\n---\n")
    assert hostile.problem is None or hostile.problem.kind == ProblemKind.bad_yaml
