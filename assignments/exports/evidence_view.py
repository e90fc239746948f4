"""How a written answer's evidence (``results.model.Evidence``) is shown: Markdown and HTML blocks.

Every view (feedback, the class report's student pages, ``course written``) shows the same thing: the label
(``evidence.label``: the student's own run, or flagged and why), then the outputs as submitted. The text
is the student's, so it is always escaped (HTML) or fenced (Markdown), and images are only ever PNG
data whose base64 alphabet is checked before it goes into a page (``escaping``).
"""

from __future__ import annotations

import re

from assignments.escaping import html_image, html_text, markdown_fence, markdown_inline
from assignments.grading.submission.evidence import label
from assignments.results.model import Evidence

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def plain(text: str) -> str:
    """Output text as a reader sees it in Jupyter: colour codes dropped, progress-bar redraws collapsed
    to their last state (``\\r``)."""
    text = _ANSI.sub("", text)
    return "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))


def evidence_markdown(items: list[Evidence]) -> list[str]:
    """Markdown lines for one question's evidence (images are counted; the HTML view shows them)."""
    out = []
    for item in items:
        out.append(f"> **{markdown_inline(label(item))}**")
        texts = [plain(o["text"]).rstrip() for o in item.outputs if o["kind"] != "image"]
        images = sum(1 for o in item.outputs if o["kind"] == "image")
        if texts:
            out += ["", *markdown_fence("\n".join(t for t in texts if t))]
        if images:
            out += ["", f"({images} figure(s) as submitted: see the HTML version)"]
        out.append("")
    return out


def evidence_html(items: list[Evidence]) -> str:
    """One HTML block for one question's evidence: a labelled box per evidence cell."""
    e = html_text
    out = []
    for item in items:
        kind = "evidence" if item.status == "kept" else "evidence flagged"
        out.append(f'<div class="{kind}"><p class="evidence-label"><strong>{e(label(item))}</strong></p>')
        for output in item.outputs:
            if output["kind"] == "image":
                out.append(html_image(output["png"]))
            elif plain(output["text"]).strip():
                out.append(f"<pre>{e(plain(output['text']).rstrip())}</pre>")
        out.append("</div>")
    return "\n".join(out)


STYLE = """.evidence{border-left:4px solid #1a7f37;background:#f6f8fa;padding:.4rem .8rem;margin:.6rem 0}
.evidence.flagged{border-left-color:#cf222e;background:#ffebe9}.evidence pre{white-space:pre-wrap;margin:.3rem 0}
.evidence img{max-width:100%}"""
