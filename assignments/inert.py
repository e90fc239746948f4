"""Submissions made inert before a TA's browser shows them (formgrader, nbgrader's feedback).

A submitted notebook is the student's to write, and formgrader renders it in the TA's browser, beside
the TA's session and nbgrader's API: raw HTML in a Markdown answer, a saved ``text/html`` or JavaScript
output, a cell's metadata that a template prints into an attribute, each could run a script with the
TA's rights there. So every notebook placed where formgrader or nbgrader's feedback reads it goes
through ``inert_notebook`` first, and formgrader's own exporter runs it again on every page it renders
(``formgrader_extension``), whatever notebook it finds:

- Markdown is rendered as nbconvert renders it, then rebuilt by ``clean_html``, an allow-list
  sanitizer: allowed tags with allowed attributes (links to http(s) and mail only, images only as
  inline PNG, JPEG or GIF data), and everything else shown as text, so the TA still reads what the
  student wrote. The cell keeps the result as one HTML block, which Markdown renderers pass through.
- outputs keep their text, PNG and JPEG parts; an active part (HTML, JavaScript, SVG, Markdown, LaTeX,
  widgets, anything else) is dropped with a one-line note, and its source is shown as text when the
  output holds nothing else. Text is never changed, so evidence stays as submitted, only inert.
- metadata is rebuilt: nbgrader's own cell fields (kept only where they pass the rules of nbgrader's
  validator, with a grade_id of letters, digits, ``_``, ``-`` and ``.``, once per grade_id), tags in the
  same alphabet, a valid cell id, a plain Python kernelspec; nothing else (widget state, attachments
  once inlined, Colab's fields) is kept.

Names from the LMS roster, which formgrader prints too, are made text where they enter the gradebook
(``escaping.stored_name``).
"""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser

import nbformat
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

from assignments import notebooks

# --- the allow-list sanitizer ------------------------------------------------------------------------------

_BLOCKS = "address blockquote dd details div dl dt figcaption figure h1 h2 h3 h4 h5 h6 hr li ol p pre summary ul"
_INLINE = "a abbr b br cite code del dfn em i img ins kbd mark q s samp small span strike strong sub sup tt u var"
_TABLES = "caption table tbody td tfoot th thead tr"
TAGS = frozenset(f"{_BLOCKS} {_INLINE} {_TABLES}".split())
VOID = frozenset({"br", "hr", "img"})

_DIGITS = re.compile(r"\d{1,4}")
_DATA_IMAGE = re.compile(r"data:image/(?:png|jpeg|gif);base64,[A-Za-z0-9+/]+={0,2}")
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_WORD = re.compile(r"[A-Za-z0-9_.-]{1,100}")
_CELL_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _highlight_classes() -> frozenset:
    """The class names nbconvert's code highlighting (pygments) gives a code block's spans."""
    from pygments.token import STANDARD_TYPES

    return frozenset(STANDARD_TYPES.values()) - {""} | {"highlight", "hll"}


_CLASSES = _highlight_classes()


def _url(value: str) -> str | None:
    """A link target a click may follow: http(s), mail or a fragment; None for anything else. Browsers
    skip spaces and control characters in a URL's scheme, so the check does too."""
    url = "".join(ch for ch in value if ch > " ")
    return url if url.lower().startswith(("http://", "https://", "mailto:")) or url.startswith("#") else None


def _image(value: str) -> str | None:
    """Only inline image data: an image from anywhere else is a request the TA's browser would make."""
    data = "".join(value.split())
    return data if _DATA_IMAGE.fullmatch(data) else None


def _base64(value) -> str | None:
    """Image data as one base64 string, or None when it is not base64 (whitespace is dropped first, so the
    check stays linear in the size of what a student sent)."""
    data = "".join(notebooks.text(value).split())
    return data if data and _BASE64.fullmatch(data) else None


def _number(value: str) -> str | None:
    return value if _DIGITS.fullmatch(value.strip()) else None


def _classes(value: str) -> str | None:
    names = value.split()
    return " ".join(names) if names and all(name in _CLASSES for name in names) else None


def _text(value: str) -> str:
    return value


ATTRIBUTES: dict[str, dict] = {
    "a": {"href": _url, "title": _text},
    "img": {"src": _image, "alt": _text, "title": _text, "width": _number, "height": _number},
    "td": {"colspan": _number, "rowspan": _number},
    "th": {"colspan": _number, "rowspan": _number},
    "ol": {"start": _number},
    "abbr": {"title": _text},
    **{tag: {"class": _classes} for tag in ("code", "div", "pre", "span")},
}
# A link without its target or an image without its data is shown as text, so the TA sees what it was.
REQUIRED = {"a": "href", "img": "src"}
# Links open a new tab, without the grading page as their opener.
ADDED = {"a": (("rel", "noopener noreferrer"), ("target", "_blank"))}


class _Rebuilder(HTMLParser):
    """Writes a new document from the parsed one: allowed elements with checked attributes, all text
    escaped, any other markup as escaped text. The browser then parses only what this wrote, so how
    this parser read the student's HTML cannot make anything run; every element it opens, it closes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag, attrs):
        self._start(tag, attrs, self_closing=False)

    def handle_startendtag(self, tag, attrs):
        self._start(tag, attrs, self_closing=True)

    def _start(self, tag, attrs, self_closing):
        kept = self._attributes(tag, attrs)
        if kept is None:
            self._show(self.get_starttag_text() or f"<{tag}>")
            return
        written = "".join(f' {name}="{html.escape(value)}"' for name, value in kept)
        self.out.append(f"<{tag}{written}>")
        if tag in VOID:
            return
        if self_closing:
            self.out.append(f"</{tag}>")
        else:
            self.open.append(tag)

    @staticmethod
    def _attributes(tag, attrs) -> list[tuple[str, str]] | None:
        if tag not in TAGS:
            return None
        rules = ATTRIBUTES.get(tag, {})
        kept = {}
        for name, value in attrs:
            check = rules.get(name)
            checked = check(value or "") if check else None
            if checked is not None and name not in kept:
                kept[name] = checked
        if tag in REQUIRED and REQUIRED[tag] not in kept:
            return None
        return [*kept.items(), *ADDED.get(tag, ())]

    def handle_endtag(self, tag):
        if tag not in self.open:
            self._show(f"</{tag}>")
            return
        while self.open:
            name = self.open.pop()
            self.out.append(f"</{name}>")
            if name == tag:
                break

    def handle_data(self, data):
        self._show(data)

    def handle_comment(self, data):
        self._show(f"<!--{data}-->")

    def handle_decl(self, decl):
        self._show(f"<!{decl}>")

    def unknown_decl(self, data):
        self._show(f"<![{data}]>")

    def handle_pi(self, data):
        self._show(f"<?{data}>")

    def _show(self, text: str):
        self.out.append(html.escape(text))

    def result(self) -> str:
        self.close()
        self._show(self.rawdata)  # the text after a <script> or <style> that is never closed
        return "".join(self.out + [f"</{name}>" for name in reversed(self.open)])


def clean_html(markup: str) -> str:
    """``markup`` with only allow-listed elements and attributes left as markup; the rest as text."""
    rebuilder = _Rebuilder()
    rebuilder.feed(markup)
    return rebuilder.result()


# --- Markdown ----------------------------------------------------------------------------------------------


def _attachments(value) -> dict:
    """A Markdown cell's attachments that are images nbconvert may inline: PNG and JPEG data only."""
    found = {}
    for name, bundle in (value or {}).items() if isinstance(value, dict) else ():
        if not isinstance(bundle, dict):
            continue
        for mime in ("image/png", "image/jpeg"):
            data = _base64(bundle.get(mime))
            if data:
                found[str(name)] = {mime: data}
                break
    return found


def render_markdown(source: str, attachments=None) -> str:
    """Markdown to HTML exactly as formgrader's exporter renders it (nbconvert's renderer, raw HTML
    passed through), attached images inlined."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    renderer = IPythonRenderer(escape=False, attachments=_attachments(attachments), exclude_anchor_links=True)
    return MarkdownWithMath(renderer=renderer).render(source)


def inert_markdown(source: str, attachments=None) -> str:
    """A Markdown cell's new source: its rendering, sanitized, as one HTML block. Newlines are written
    as character references, so no blank line ends the block and every Markdown renderer passes it
    through as it is. A cell nbconvert cannot render (an attachment missing) is shown as its text."""
    try:
        rendered = render_markdown(source, attachments)
    except Exception:  # noqa: BLE001 - the renderer's errors are the student's to cause; show the text
        rendered = f"<pre>{html.escape(source)}</pre>"
    body = clean_html(rendered).replace("\r", "&#13;").replace("\n", "&#10;")
    return f"<div>{body}</div>"


# --- outputs -----------------------------------------------------------------------------------------------

SHOWN = ("text/plain", "image/png", "image/jpeg")
NOTE = "[grader] not rendered in this page (only text, PNG and JPEG are): {kinds}; {shown}\n"


def _source_text(value) -> str:
    if isinstance(value, (str, list)):
        return notebooks.text(value)
    return json.dumps(value, indent=1, sort_keys=True, default=str)


# Outputs and cells are written as plain nbformat 4.5 structures: nbformat's constructors validate each
# node against the schema, which costs more than everything else here.


def _stream(text: str, name: str = "stdout") -> dict:
    return {"output_type": "stream", "name": name, "text": text}


def _bundle(output: dict, kind: str) -> list:
    data = output.get("data") if isinstance(output.get("data"), dict) else {}
    shown = {}
    if "text/plain" in data:
        shown["text/plain"] = _source_text(data["text/plain"])
    for mime in ("image/png", "image/jpeg"):
        image = _base64(data.get(mime)) if mime in data else None
        if image:
            shown[mime] = image
    active = sorted(str(mime) for mime in data if mime not in shown)
    note = "the text version above is what the output also held"
    if active and not shown:
        shown["text/plain"] = _source_text(data[active[0]])
        note = f"the {active[0]} source is shown above as text"
    kept = []
    if shown:
        extra = {"execution_count": _count(output.get("execution_count"))} if kind == "execute_result" else {}
        kept.append({"output_type": kind, "data": shown, "metadata": {}, **extra})
    if active:
        kept.append(_stream(NOTE.format(kinds=", ".join(active), shown=note)))
    return kept


def inert_outputs(outputs) -> list:
    """A code cell's outputs with their text and images as submitted and nothing active."""
    kept = []
    for output in outputs if isinstance(outputs, list) else []:
        kind = output.get("output_type") if isinstance(output, dict) else None
        if kind == "stream":
            kept.append(
                _stream(notebooks.text(output.get("text")), "stderr" if output.get("name") == "stderr" else "stdout")
            )
        elif kind == "error":
            trace = output.get("traceback")
            kept.append(
                {
                    "output_type": "error",
                    "ename": notebooks.text(output.get("ename")),
                    "evalue": notebooks.text(output.get("evalue")),
                    "traceback": [notebooks.text(line) for line in trace] if isinstance(trace, list) else [],
                }
            )
        elif kind in ("execute_result", "display_data"):
            kept += _bundle(output, kind)
        else:
            kept.append(_stream("[grader] an output of an unknown kind was dropped\n"))
    return kept


def _count(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# --- metadata ----------------------------------------------------------------------------------------------

NBGRADER_FIELDS = {
    "grade": bool,
    "solution": bool,
    "locked": bool,
    "task": bool,
    "points": (int, float),
    "schema_version": int,
    "grade_id": str,
    "cell_type": str,
    "checksum": str,
}
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def _nbgrader(meta, cell_type: str, seen: set) -> dict | None:
    """nbgrader's fields of one cell, kept where they have nbgrader's types and pass the rules of its
    validator (``nbgraderformat.v3``: a grade has points, a Markdown answer is graded, a task is Markdown)
    and the grade_id is plain and not seen before (formgrader uses it as an element id and a key); None
    otherwise. nbgrader's own validator is not called here: it checks its JSON schema on every call."""
    if not isinstance(meta, dict):
        return None
    kept = {
        key: value
        for key, kinds in NBGRADER_FIELDS.items()
        if isinstance(value := meta.get(key), kinds) and not (kinds is not bool and isinstance(value, bool))
    }
    grade_id = kept.get("grade_id")
    if grade_id is None or not _WORD.fullmatch(grade_id) or grade_id in seen:
        return None
    if kept.get("cell_type") not in (None, "code", "markdown"):
        del kept["cell_type"]
    if "checksum" in kept and not _WORD.fullmatch(kept["checksum"]):
        del kept["checksum"]
    grade, solution, task = (kept.get(key, False) for key in ("grade", "solution", "task"))
    if kept.get("schema_version") != 3 or not all(key in kept for key in ("grade", "solution", "locked")):
        return None
    if (grade and "points" not in kept) or (task and cell_type != "markdown"):
        return None
    if not task and cell_type == "markdown" and grade != solution:
        return None
    seen.add(grade_id)
    return kept


def _metadata(meta, cell_type: str, seen: set) -> dict:
    meta = meta if isinstance(meta, dict) else {}
    kept = {}
    nbgrader = _nbgrader(meta.get("nbgrader"), cell_type, seen)
    if nbgrader is not None:
        kept["nbgrader"] = nbgrader
    tags = meta.get("tags")
    if isinstance(tags, list):
        kept["tags"] = [tag for tag in tags if isinstance(tag, str) and _WORD.fullmatch(tag)]
    return kept


def _cell_id(value, index: int, seen: set) -> str:
    cell_id = value if isinstance(value, str) and _CELL_ID.fullmatch(value) and value not in seen else None
    if cell_id is None:
        cell_id = f"inert-{index}"
        while cell_id in seen:
            cell_id += "-"
    seen.add(cell_id)
    return cell_id


# --- the notebook ------------------------------------------------------------------------------------------


def inert_notebook(nb):
    """A new notebook holding what ``nb`` shows, with nothing in it that a browser would run."""
    cells, ids, grade_ids = [], set(), set()
    for index, cell in enumerate(nb.get("cells", []) if isinstance(nb.get("cells"), list) else []):
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type")
        source = notebooks.text(cell.get("source"))
        made = {"id": _cell_id(cell.get("id"), index, ids), "cell_type": kind}
        if kind == "code":
            made["metadata"] = _metadata(cell.get("metadata"), kind, grade_ids)
            made["execution_count"] = _count(cell.get("execution_count"))
            made["outputs"] = inert_outputs(cell.get("outputs"))
        elif kind == "markdown":
            made["metadata"] = _metadata(cell.get("metadata"), kind, grade_ids)
            source = inert_markdown(source, cell.get("attachments"))
        elif kind == "raw":  # shown as text: a raw cell's format is the student's to claim
            made.update(cell_type="markdown", metadata={})
            source = f"<div><pre>{html.escape(source)}</pre></div>"
        else:
            continue
        cells.append({**made, "source": source})
    metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    return nbformat.from_dict({"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells})


class Inert(Preprocessor):
    """``inert_notebook`` as an nbconvert (and nbgrader) step: at the end of ``nbgrader autograde`` (see
    nbgrader_config.py), in ``nbgrader generate_feedback``, and for every formgrader page."""

    enabled = Bool(True).tag(config=True)

    def preprocess(self, nb, resources):
        return inert_notebook(nb), resources


# --- names -------------------------------------------------------------------------------------------------

# Markup characters swapped for look-alikes, so a name reads the same and is text in any page.
