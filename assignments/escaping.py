"""Student-derived text, escaped for the format it lands in: the one rule every file the project writes
for people applies.

A submission's bytes reach people after grading: a TA's browser (feedback and similarity pages, the
written answers' HTML and PDF), a Markdown viewer (the class report, Markdown feedback), a spreadsheet
(the Canvas and nbgrader CSVs), Gradescope's and the terminal's text. Each of them executes or follows
what it can: a tag, a link, a remote image (a beacon that fires when the page is opened), a formula, an
escape sequence. So every string a student influenced (answers, evidence outputs, messages quoting the
kernel, names from the roster, file names, grade ids read from the notebook) goes through one function of
this module, chosen by where it lands:

- ``html_text``: HTML element text and quoted attribute values.
- ``markdown_inline``: Markdown text inside one line (a list item, a heading, a table cell).
- ``markdown_fence``: a block of Markdown shown verbatim (outputs as submitted).
- ``markdown_html``: a student's own Markdown (a written answer) as HTML, through an allow-list renderer.
- ``html_image``: a picture from a notebook, only as checked base64 inline data.
- ``csv_cell``: a CSV cell no spreadsheet evaluates.
- ``one_line`` and ``printable``: plain text (Gradescope's text fields, the terminal, JSON for people).
- ``stored_name``: a roster name stored where another program prints it unescaped (nbgrader's gradebook,
  which formgrader's pages and scripts show).

Under all of them, ``printable`` replaces what does not print (escape sequences, bidirectional
overrides that make text read differently from its bytes, other control characters) with ``?``.
Pages also carry ``PAGE_POLICY``, a content security policy that loads nothing but inline images, as a
second wall should an escape ever be missed.
"""

from __future__ import annotations

import html
import re
from urllib.parse import unquote

LINE_CHARS = 600  # the longest one-line field shown (a test message, a name)
PAGE_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
IMAGE_TYPES = ("image/png", "image/jpeg")

_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
# Characters that start a Markdown construct inside a line: emphasis, code, links and images, headings,
# table cells, strikethrough, math ($), superscripts and footnotes (^). An underscore inside a word
# (mha_tests) starts nothing and is left alone. <, > and & become entities instead (html.escape), which
# renderers without backslash escapes for them also show as text.
_MARKDOWN_SPECIAL = re.compile(r"[\\`*{}\[\]#|!~$^]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
# What GitHub-flavoured renderers turn into links without any bracket: "scheme://", "www." and e-mail
# addresses. Escaping the ":", the "." or the "@" breaks the pattern and still shows the same text.
_AUTOLINK = re.compile(r":(?=//)|(?<=www)\.|@", re.IGNORECASE)
# At the start of a line: a list item (-, +, "1."), a block quote (already &gt;), a setext underline (=).
_LINE_START = re.compile(r"^([-+=]|\d+(?=[.)]))")
_CSV_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
# A formula character after anything a reader may split a cell at: the separators spreadsheets guess or
# are set to (comma, semicolon, tab, bar) and line breaks, with any spaces a reader may trim in between.
_INNER_TRIGGER = re.compile(r"([\t\r\n,;|][\s,;|]*)([=+\-@])")


def printable(text, keep: str = "\n\t") -> str:
    """``text`` with every character that does not print replaced by "?", except those in ``keep``."""
    text = "" if text is None else str(text)
    rest = text
    for allowed in keep:
        rest = rest.replace(allowed, "")
    if rest.isprintable():  # the usual case, checked at C speed
        return text
    return "".join(c if c.isprintable() or c in keep else "?" for c in text)


def one_line(text, limit: int = LINE_CHARS) -> str:
    """``text`` as a plain one-line field: line breaks and tabs become spaces, what does not print
    becomes "?", and at most ``limit`` characters remain (the last one "…"). Applying it twice changes
    nothing."""
    text = printable(text, keep="\t\n\r")
    text = re.sub(r"[\t\n\r]", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def html_text(text) -> str:
    """``text`` as HTML element text or a quoted attribute value: nothing in it is markup."""
    return html.escape(printable(text), quote=True)


def markdown_inline(text, limit: int = LINE_CHARS) -> str:
    """``text`` as literal Markdown text on one line: it reads as typed in any renderer, with no link,
    image, tag, formula, code span or table cell of its own."""
    text = html.escape(one_line(text, limit), quote=False)
    text = _MARKDOWN_SPECIAL.sub(lambda m: "\\" + m.group(0), text)
    text = _AUTOLINK.sub(lambda m: "\\" + m.group(0), text)
    return _LINE_START.sub(lambda m: "\\" + m.group(0) if not m.group(0).isdigit() else m.group(0) + "\\", text)


def markdown_fence(text) -> list[str]:
    """Markdown lines that show ``text`` verbatim: a code fence longer than any run of backticks in it, so
    nothing inside can close it early."""
    text = printable(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *text.split("\n"), fence]


def html_image(data, mime: str = "image/png", alt: str = "figure as submitted") -> str:
    """An inline image from a notebook's base64 data; empty when the data or its type is anything else."""
    if mime not in IMAGE_TYPES or not isinstance(data, str) or not _BASE64.match(data):
        return ""
    return f'<img alt="{html_text(alt)}" src="data:{mime};base64,{data}">'


def csv_cell(value) -> str:
    """``value`` as a CSV cell that a spreadsheet shows as text.

    Excel, LibreOffice and Google Sheets treat a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a
    formula, and a leading tab or carriage return can hide such a character from a first look while some
    readers still strip it and evaluate the rest. Such a cell gets a leading apostrophe: spreadsheets show
    it as text, the convention OWASP recommends. A plain number (``-1.5``) stays a number: points may be
    negative after a penalty and must remain numbers for the LMS.

    A reader may also split a cell where the writer did not: much of Europe opens CSVs with ``;``, others
    guess tab or ``|``, and a line break inside a quoted cell ends the row for a reader set to anything
    but ``,``. So a formula character after any of those (``Jane;=HYPERLINK(...)``) gets the apostrophe
    too: whatever delimiter a spreadsheet picks, no piece of the cell starts a formula."""
    text = printable(value, keep="\t\r\n")
    if _NUMBER.match(text):
        return text
    text = _INNER_TRIGGER.sub(r"\1'\2", text)
    return "'" + text if text.startswith(_CSV_TRIGGERS) else text


def page_policy_meta() -> str:
    """The ``<meta>`` that gives a page ``PAGE_POLICY``: no script, no request, only inline images."""
    return f'<meta http-equiv="Content-Security-Policy" content="{PAGE_POLICY}">'


def markdown_html(text, images: dict | None = None) -> str:
    """A student's Markdown (a written answer) as HTML through an allow-list: emphasis, lists, code,
    tables and quotes render; raw HTML is shown as text; a link shows its text and address, never as
    something to click; an image renders only when it is pasted into the cell (``images``: attachment
    name -> (mime, base64)), any other shows as its alt text and address; headings are demoted below the
    page's own; formulas stay as typed."""
    import mistune

    class AllowList(mistune.HTMLRenderer):
        def link(self, text, url, title=None):
            address = html_text(url)
            return address if text == address else f"{text} ({address})"

        def image(self, text, url, title=None):
            if url.startswith("attachment:"):  # the renderer hands the address percent-encoded
                mime, data = (images or {}).get(unquote(url[len("attachment:") :]), (None, ""))
                return html_image(data, mime, "image pasted into the answer") or "[missing image]"
            return f"[image not shown: {text} ({html_text(url)})]"

        def block_code(self, code, info=None):
            return f"<pre><code>{html_text(code)}</code></pre>\n"  # no class from the info string

        def heading(self, text, level, **attrs):
            level = min(level + 3, 6)  # h4 and below: the page's own headings stay above the student's
            return f"<h{level}>{text}</h{level}>\n"

    render = mistune.create_markdown(escape=True, renderer=AllowList(escape=True), plugins=["table", "strikethrough"])
    return render(printable(text))


# Look-alikes for the characters that open markup or end a quoted string, for names another program prints
# without escaping them: the name still reads the same to a person.
_NAME_SWAPS = str.maketrans({"<": "‹", ">": "›", '"': "”", "`": "ʼ"})
NAME_CHARS = 100


def stored_name(name) -> str:
    """A person's name from the LMS roster as stored in nbgrader's gradebook, whose names formgrader's pages
    and scripts print as they are: one printable line of at most NAME_CHARS, markup characters swapped for
    look-alikes."""
    return one_line(name, NAME_CHARS).translate(_NAME_SWAPS)
