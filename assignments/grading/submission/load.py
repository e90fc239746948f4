"""Reading a submitted file defensively into an nbformat-4 notebook, with a finding for everything that
was odd about it (encoding, line endings, an editor's metadata, an old nbformat) and a clear error for
what cannot be read (missing, empty, too large, not JSON, not a notebook, a newer nbformat)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat

from assignments import decoding, notebooks
from assignments.course import Assignment
from assignments.grading.testkit.kernel_text import describe_exception
from assignments.notebooks import MAX_NOTEBOOK_BYTES
from assignments.results.model import Finding


def default_template(assignment: Assignment):
    """The release notebook; before ``course release`` has run, the same thing built from the source."""
    try:
        return assignment.release_notebook()
    except (OSError, ValueError):
        return notebooks.blank_notebook(assignment.source_notebook())


def load_submission(submission) -> tuple[object | None, bytes | None, list[Finding]]:
    """(nbformat-4 notebook or None, the raw bytes, findings). Errors have severity "error"."""
    findings: list[Finding] = []
    if isinstance(submission, (bytes, bytearray)):
        raw = bytes(submission)
    elif not isinstance(submission, (str, Path)) or not str(submission):
        return (
            None,
            None,
            [Finding("missing-file", f"no submission file was given (got {type(submission).__name__})", "error")],
        )
    else:
        path = Path(submission)
        if not path.is_file():
            what = "is a folder, not a notebook file" if path.is_dir() else "does not exist"
            return None, None, [Finding("missing-file", f"the submission {path.name!r} {what}", "error")]
        if path.stat().st_size > MAX_NOTEBOOK_BYTES:
            return (
                None,
                None,
                [
                    Finding(
                        "too-large",
                        f"the notebook is {path.stat().st_size / 1e6:.0f} MB, "
                        f"more than the {MAX_NOTEBOOK_BYTES // 2**20} MB accepted; "
                        "clear the outputs and submit again",
                        "error",
                    )
                ],
            )
        raw = path.read_bytes()
    if len(raw) > MAX_NOTEBOOK_BYTES:
        return None, None, [Finding("too-large", "the notebook is too large to grade", "error")]
    if not raw.strip():
        return None, None, [Finding("empty-file", "the submitted file is empty", "error")]
    try:
        decoded = decoding.decode(raw)
    except decoding.NotText as error:
        return None, None, [Finding("invalid-json", f"the file is not text ({error}); is it a notebook?", "error")]
    if decoded.note:
        findings.append(Finding("text-encoding", decoded.note, "warning" if decoded.guessed else "info"))
    try:
        data = json.loads(decoded.text)
    except RecursionError:  # json's C decoder recurses once per nesting level
        return None, None, [Finding("invalid-json", "the notebook file is nested too deeply to be a notebook", "error")]
    except ValueError as error:
        return (
            None,
            None,
            [
                Finding(
                    "invalid-json",
                    f"the notebook file is not valid JSON ({error}); it may have been cut off or edited by hand",
                    "error",
                )
            ],
        )
    if not isinstance(data, dict) or not isinstance(data.get("nbformat"), int):
        return None, None, [Finding("not-a-notebook", "the file is JSON but not a Jupyter notebook", "error")]
    major = data["nbformat"]
    if major > 4:
        return (
            None,
            None,
            [Finding("unsupported-nbformat", f"nbformat {major} is newer than this grader reads (4)", "error")],
        )
    findings += _exported_by_editor(data)
    if major == 4 and isinstance(data.get("cells"), list):
        # Colab and older editors write no cell ids; nbformat 4.5 wants them (any unique ones do).
        for index, cell in enumerate(data["cells"]):
            if isinstance(cell, dict) and data.get("nbformat_minor", 0) >= 5 and "id" not in cell:
                cell["id"] = f"cell-{index}"
    try:
        nb = nbformat.reads(json.dumps(data), as_version=4)
    except Exception as error:  # noqa: BLE001 - nbformat raises many kinds
        return (
            None,
            None,
            [Finding("not-a-notebook", f"the notebook could not be read ({describe_exception(error)})", "error")],
        )
    if major < 4:
        findings.append(
            Finding(
                "old-nbformat",
                f"the notebook was saved as nbformat {major}; it was converted to nbformat 4 for grading",
                "info",
            )
        )
    if not isinstance(nb.get("cells"), list):
        return None, None, [Finding("not-a-notebook", "the notebook has no cells", "error")]
    nb.cells = [c for c in nb.cells if isinstance(c, dict) and c.get("cell_type") in ("code", "markdown", "raw")]
    crlf = False
    for index, cell in enumerate(nb.cells):
        if not isinstance(cell.get("metadata"), dict):
            cell["metadata"] = nbformat.NotebookNode()
        meta = cell["metadata"].get("nbgrader")
        if meta is not None and (not isinstance(meta, dict) or not isinstance(meta.get("grade_id", ""), str)):
            del cell["metadata"]["nbgrader"]
            findings.append(
                Finding(
                    "metadata-invalid",
                    f"cell {index + 1} has malformed nbgrader metadata; it was treated as a cell you added",
                    "warning",
                    f"cell {index + 1}",
                )
            )
        if not isinstance(cell.get("source"), (str, list)):
            cell["source"] = ""
        elif isinstance(cell["source"], list):
            cell["source"] = "".join(str(part) for part in cell["source"])
        if "\r" in cell["source"]:
            cell["source"] = cell["source"].replace("\r\n", "\n").replace("\r", "\n")
            crlf = True
    if crlf or b"\r\n" in raw[:4096]:
        findings.append(
            Finding(
                "line-endings",
                "the notebook was saved with Windows line endings (CRLF); they were read as plain newlines",
                "info",
            )
        )
    return nb, raw, findings


# Keys that Colab, VS Code and JupyterLab extensions add to a notebook; harmless, and never read.
EDITOR_KEYS = {
    "colab": "Colab",
    "vscode": "VS Code",
    "accelerator": "Colab",
    "gpuClass": "Colab",
    "widgets": "Jupyter widgets",
    "interpreter": "VS Code",
}


def _exported_by_editor(data: dict) -> list[Finding]:
    """One info finding naming what an editor added (other metadata, attachments, missing cell ids).

    Everything listed is ignored or filled in: grading reads only cell types and sources, and the
    template supplies the nbgrader metadata."""
    seen = set()
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    seen |= {f"{EDITOR_KEYS[k]} notebook metadata" for k in meta if k in EDITOR_KEYS}
    cells = data.get("cells") if isinstance(data.get("cells"), list) else []
    cells = [c for c in cells if isinstance(c, dict)]
    for cell in cells:
        cell_meta = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
        seen |= {f"{EDITOR_KEYS[k]} cell metadata" for k in cell_meta if k in EDITOR_KEYS}
        if cell.get("attachments"):
            seen.add("cell attachments")
    missing_ids = sum(1 for c in cells if "id" not in c)
    if data.get("nbformat") == 4 and data.get("nbformat_minor", 0) >= 5 and missing_ids:
        seen.add(f"{missing_ids} cell(s) without an id (given one)")
    if not seen:
        return []
    return [
        Finding(
            "notebook-format",
            f"the notebook was saved by another editor ({', '.join(sorted(seen))}); that was ignored for grading",
            "info",
        )
    ]
