"""Submissions made inert (assignments/inert.py), without a browser: the allow-list sanitizer, a hostile
notebook rendered by nbconvert after ``inert_notebook``, and the standalone door's notebook for formgrader
with its evidence labelled. The browser proof is tests/handgrading/test_formgrader.py."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import nbformat
import pytest

from assignments import escaping, inert, notebooks
from assignments.course import default
from assignments.exports import nbgrader_gradebook
from assignments.grading.submission import evidence
from tests.fixtures import hostile_class
from tests.helpers import QUICKEST

LISTENER = "http://127.0.0.1:9"


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []

    def handle_data(self, data):
        self.parts.append(data)


def visible_text(markup: str) -> str:
    parser = _Text()
    parser.feed(markup)
    parser.close()
    return " ".join("".join(parser.parts).split())


def evidence_question() -> tuple[str, str]:
    question, cells = next(iter(notebooks.evidence_cells(default().assignment(QUICKEST).source_notebook()).items()))
    return question, cells[0]


@pytest.fixture(scope="module")
def hostile():
    """The hostile notebook as the standalone door receives it (a file nbformat would not write)."""
    question, cell = evidence_question()
    nb = hostile_class.hostile_notebook(default().assignment(QUICKEST).release_notebook(), LISTENER, question, cell)
    return nbformat.from_dict(json.loads(hostile_class.tampered_file(nb, LISTENER)))


@pytest.mark.parametrize(
    ("markup", "kept", "as_text"),
    [
        ("<p>a <b>b</b> <code>c</code></p>", "<p>a <b>b</b> <code>c</code></p>", ""),
        ("<script>x()</script>", "", "&lt;script&gt;x()&lt;/script&gt;"),
        ('<img src="x" onerror="x()">', "", "&lt;img src=&quot;x&quot; onerror="),
        ('<a href=" java\tscript:x()">l</a>', "", "&lt;a href="),
        ('<a href="https://example.org" onclick="x()">l</a>', '<a href="https://example.org" rel=', ""),
        ('<img src="data:image/png;base64,iVBORw0KGgo=" alt="plot">', '<img src="data:image/png;base64,', ""),
        ('<img src="https://example.org/pixel.png">', "", "&lt;img src="),
        ('<span class="k btn" style="color:red">x</span>', "<span>x</span>", ""),
        ('<span class="nf">f</span>', '<span class="nf">f</span>', ""),
        ("</div></div><i>open", "<i>open</i>", "&lt;/div&gt;&lt;/div&gt;"),
        ("<b><style>@import url(x)", "<b>", "&lt;style&gt;@import url(x)"),
    ],
)
def test_the_sanitizer_keeps_allowed_markup_and_shows_the_rest_as_text(markup, kept, as_text):
    cleaned = inert.clean_html(markup)
    assert kept in cleaned, f"allowed markup was not kept: {cleaned!r}"
    assert as_text in cleaned, f"markup outside the allow-list is not shown as text: {cleaned!r}"
    assert 'onerror="' not in cleaned and "onclick" not in cleaned and "style=" not in cleaned


def test_an_inert_hostile_notebook_renders_with_no_payload_and_its_text_kept(hostile):
    from nbconvert.exporters import HTMLExporter

    question, cell = evidence_question()
    carrying = {question, cell}  # the cells with payloads: the answer, its evidence, the student's own two
    shown = inert.inert_notebook(hostile)
    shown.cells = [c for c in shown.cells if notebooks.grade_id(c) in carrying] + shown.cells[-2:]
    page, _ = HTMLExporter(template_name="classic").from_notebook_node(shown)
    assert hostile_class.active_payloads(page, LISTENER) == []
    text = visible_text(page)
    assert f"<script>{hostile_class.logs('answer-script')}" in text, "the answer's raw HTML is not shown as text"
    assert "<svg xmlns=" in text and "application/javascript" in text, "an active output is not shown as text"
    assert "VALIDATION ACCURACY 0.9999 (typed in)" in text, "evidence text changed"


def test_inert_metadata_keeps_nbgrader_fields_nbgrader_accepts_and_nothing_else(hostile):
    from nbgrader.nbgraderformat import MetadataValidator

    shown = inert.inert_notebook(hostile)
    MetadataValidator().validate_nb(shown)  # what nbgrader's CheckCellMetadata runs after Inert
    nbformat.validate(shown)
    assert set(shown.metadata) == {"kernelspec", "language_info"}
    grade_ids = [notebooks.grade_id(c) for c in shown.cells if notebooks.grade_id(c)]
    release_ids = [notebooks.grade_id(c) for c in default().assignment(QUICKEST).release_notebook().cells]
    assert grade_ids == [g for g in release_ids if g], "a grade_id was lost, or one that is markup kept"
    for cell in shown.cells:
        assert set(cell.metadata) <= {"nbgrader", "tags"}
        assert all(hostile_class.MARKER not in tag for tag in cell.metadata.get("tags", []))
        assert cell.get("execution_count") is None or isinstance(cell.execution_count, int)
    assert len({c.id for c in shown.cells}) == len(shown.cells)


def test_inert_outputs_keep_text_and_images_and_say_what_was_not_rendered():
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="loss 0.25\n"),
        nbformat.v4.new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"}),
        nbformat.v4.new_output("display_data", data={"text/html": "<table><tr><td>1</td></tr></table>"}),
    ]
    kept = inert.inert_outputs(outputs)
    assert kept[0]["text"] == "loss 0.25\n" and kept[1]["data"] == {"image/png": png, "text/plain": "<Figure>"}
    assert kept[2]["data"] == {"text/plain": "<table><tr><td>1</td></tr></table>"}
    assert "text/html" in kept[3]["text"] and kept[3]["text"].startswith("[grader]")


def test_markdown_made_inert_twice_reads_the_same():
    source = (
        "# Results\n\nAccuracy *0.87* < 0.9 & rising:\n\n```python\nx = 1 < 2\n```\n\n<b>bold</b><script>x</script>"
    )
    once = inert.inert_markdown(source)
    assert visible_text(inert.inert_markdown(once)) == visible_text(once)
    assert "&lt;script&gt;" in once and "<b>bold</b>" in once


def test_display_names_are_text_in_any_page():
    assert escaping.stored_name('<img src=x onerror="go()">\x00O\'Brien') == "‹img src=x onerror=”go()”›?O'Brien"


def test_the_standalone_door_places_an_inert_notebook_with_its_evidence_labelled(hostile, tmp_path):
    question, cell = evidence_question()
    submitted = tmp_path / "submitted.ipynb"
    submitted.write_text(hostile_class.tampered_file(hostile, LISTENER))
    found, _ = evidence.collect(hostile, default().assignment(QUICKEST))
    placed = nbgrader_gradebook.place_notebook(tmp_path / "course", QUICKEST, "4343", submitted, evidence=found)
    shown = nbformat.read(placed, as_version=4)
    flagged = f"=== FLAGGED (edited) evidence cell {cell}"
    ids = [notebooks.grade_id(c) for c in shown.cells]
    in_place = shown.cells[ids.index(cell)].outputs[0]["text"]
    assert in_place.startswith(flagged), "the evidence cell itself is not labelled"
    under = shown.cells[ids.index(question) + 1]
    assert under.outputs[0]["text"].startswith(flagged), "the written answer has no labelled evidence under it"
    under_text = "".join(o.get("text", "") for o in under.outputs)
    assert "VALIDATION ACCURACY 0.9999 (typed in)" in under_text and "[text/html] <script>" in under_text, (
        "the typed-in evidence is not shown as submitted, as text"
    )
    assert hostile_class.MARKER not in json.dumps(shown.metadata)
