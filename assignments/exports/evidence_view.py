"""How a written answer's evidence (``results.model.Evidence``) is shown: Markdown and HTML blocks.

Every view (feedback, class report, ``course written``) shows the same thing: the label line
(``evidence.label``: the student's own run, or flagged and why), then the outputs as submitted. The text
is the student's, so it is always escaped (HTML) or fenced (Markdown); images are only ever PNG data
whose base64 alphabet is checked before it goes into a page.
"""

from __future__ import annotations

import html
import re

from ..evidence import label
from ..results.model import Evidence

_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
REPORT_LINES = 6  # lines of output text per evidence cell in the class report


def plain(text: str) -> str:
    """Output text as a reader sees it in Jupyter: colour codes dropped, progress-bar redraws collapsed
    to their last state (``\\r``)."""
    text = _ANSI.sub("", text)
    return "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))


def _fence(text: str) -> str:
    """A Markdown code fence longer than any run of backticks in ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def evidence_markdown(items: list[Evidence]) -> list[str]:
    """Markdown lines for one question's evidence (images are counted; the HTML view shows them)."""
    out = []
    for item in items:
        out.append(f"> **{label(item)}**")
        texts = [plain(o["text"]).rstrip() for o in item.outputs if o["kind"] != "image"]
        images = sum(1 for o in item.outputs if o["kind"] == "image")
        if texts:
            body = "\n".join(t for t in texts if t)
            fence = _fence(body)
            out += ["", fence, body, fence]
        if images:
            out += ["", f"({images} figure(s) as submitted: see the HTML version)"]
        out.append("")
    return out


def image_tag(png: str) -> str:
    return f'<img alt="figure as submitted" src="data:image/png;base64,{png}">' if _BASE64.match(png) else ""


def evidence_html(items: list[Evidence]) -> str:
    """One HTML block for one question's evidence: a labelled box per evidence cell."""
    e = html.escape
    out = []
    for item in items:
        kind = "evidence" if item.status == "kept" else "evidence flagged"
        out.append(f'<div class="{kind}"><p class="evidence-label"><strong>{e(label(item))}</strong></p>')
        for output in item.outputs:
            if output["kind"] == "image":
                out.append(image_tag(output["png"]))
            elif plain(output["text"]).strip():
                out.append(f"<pre>{e(plain(output['text']).rstrip())}</pre>")
        out.append("</div>")
    return "\n".join(out)


STYLE = """.evidence{border-left:4px solid #1a7f37;background:#f6f8fa;padding:.4rem .8rem;margin:.6rem 0}
.evidence.flagged{border-left-color:#cf222e;background:#ffebe9}.evidence pre{white-space:pre-wrap;margin:.3rem 0}
.evidence img{max-width:100%}"""


def report_lines(items: list[Evidence]) -> str:
    """The class report's cell for one student and question: status and the last lines of output text."""
    parts = []
    for item in items:
        text = "\n".join(plain(o["text"]) for o in item.outputs if o["kind"] != "image")
        lines = [line.strip() for line in text.splitlines() if line.strip()][-REPORT_LINES:]
        shown = html.escape(" / ".join(lines)).replace("|", "\\|").replace("`", "'")
        figures = sum(1 for o in item.outputs if o["kind"] == "image")
        extra = f" [{figures} figure(s)]" if figures else ""
        parts.append(f"{item.cell} ({item.status}): {shown or '(no text output)'}{extra}")
    return "<br>".join(parts)
