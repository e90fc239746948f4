"""``solutions/<a>/``: the source without its hidden tests, executed in grading mode, and the model answers
of every written question."""

from __future__ import annotations

import copy
import re
import sys
from pathlib import Path

import nbformat

from assignments import notebooks
from assignments.grading.environment import GRADING_ENV
from assignments.release import claims
from assignments.release.errors import StepFailed
from assignments.release.staging import Stage
from assignments.release.tools import CELL_TIMEOUT, run_tool, tool_env


def without_hidden_tests(source_nb):
    from nbgrader.preprocessors import ClearHiddenTests

    nb = copy.deepcopy(source_nb)
    nb, _ = ClearHiddenTests(enforce_metadata=False).preprocess(nb, {})
    return nb


# Executing the solutions is reproducible: with the same library versions (OUTPUT_LIBRARIES), Python version
# and machine architecture, every execution writes the same bytes, so a release (or `course demo`) of an
# unchanged source leaves the committed solutions/ as they are (tests/release/test_release.py checks it). Measured on
# x86-64: identical with torch's AVX2 and AVX-512 kernels and MKL's compatible code path; torch's unvectorized
# kernels (ATEN_CPU_CAPABILITY=default) changed one printed digit. What would otherwise vary from run to run:
SOLUTION_ENV = {
    **GRADING_ENV,  # grading mode, offline, no progress bars, no accelerator (graded runs are on the CPU)
    # One thread in every pool: how a float sum is split between threads decides its last bits, which training
    # then carries into printed numbers (and the machine's core count would decide the split).
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "RAYON_NUM_THREADS": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "PYTHONHASHSEED": "0",  # the iteration order of sets and dicts of strings
}
# Elapsed times in printed text ("epoch 1: 0.2 s", "1.5 s per epoch", "12 ms"): the number becomes N.
_DURATION = re.compile(r"(?<![\w.])\d+(?:\.(\d+))?(?= (?:s|ms|sec|secs|seconds?|min|minutes?)\b|ms\b)")
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# The libraries whose versions decide the printed numbers and the figures (with the Python version and the
# machine's architecture): a solution notebook records them (metadata course.executed_with); where they
# differ, the same outputs cannot be expected (a new library version may initialise or compute differently).
OUTPUT_LIBRARIES = (
    "torch",
    "transformers",
    "tokenizers",
    "datasets",
    "numpy",
    "matplotlib",
    "pillow",
    "ipykernel",
    "ipython",
)


def execution_environment() -> dict:
    """What the solutions are executed with here (kernels run this interpreter's environment)."""
    import importlib.metadata
    import platform

    found = {"python": "{}.{}".format(*sys.version_info[:2]), "machine": platform.machine()}
    for name in OUTPUT_LIBRARIES:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = None
    return found


def executed_with(nb) -> dict | None:
    return nb.metadata.get("course", {}).get("executed_with")


def without_execution_record(nb) -> None:
    course = nb.metadata.get("course", {})
    course.pop("executed_with", None)
    if not course:
        nb.metadata.pop("course", None)


def _without_elapsed_times(text: str) -> str:
    return _DURATION.sub(lambda m: "N" + (".N" if m.group(1) else ""), text)


def _coalesced(outputs: list) -> list:
    """Consecutive stream outputs of one stream as one: the kernel flushes a stream every 0.2 s and at
    the end of a cell, so where a cell's printed text is split depends on timing."""
    merged = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            output.get("output_type") == "stream"
            and previous is not None
            and previous.get("output_type") == "stream"
            and previous.get("name") == output.get("name")
        ):
            previous["text"] += output["text"]
        else:
            merged.append(output)
    return merged


def _png_without_software(data: str) -> str:
    """A base64 PNG without its "Software" text chunk (matplotlib writes its version there)."""
    import base64
    import struct

    raw = base64.b64decode(data)
    if not raw.startswith(_PNG_SIGNATURE):
        return data
    kept, at = [raw[:8]], 8
    while at + 8 <= len(raw):
        length, kind = struct.unpack(">I4s", raw[at : at + 8])
        chunk = raw[at : at + 12 + length]
        if not (kind == b"tEXt" and chunk[8:].startswith(b"Software\x00")):
            kept.append(chunk)
        at += 12 + length
    return base64.b64encode(b"".join(kept)).decode("ascii") + ("\n" if data.endswith("\n") else "")


def _normalized(nb, metadata) -> None:
    """Keep what execution adds that varies by machine or run out of the notebook: its metadata (the
    source's is kept), widget views, elapsed times in printed text, where printed text was split, and
    matplotlib's version in figures."""
    nb.metadata = copy.deepcopy(metadata)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        outputs = [
            o
            for o in cell.outputs
            if not (
                o.get("output_type") == "display_data"
                and "application/vnd.jupyter.widget-view+json" in o.get("data", {})
            )
        ]
        cell.outputs = _coalesced(outputs)
        for output in cell.outputs:
            if output.get("output_type") == "stream":
                output["text"] = _without_elapsed_times(output["text"])
            data = output.get("data", {})
            if "text/plain" in data:
                data["text/plain"] = _without_elapsed_times(data["text/plain"])
            if "image/png" in data:
                data["image/png"] = _png_without_software(data["image/png"])


def execute(nb, workdir: Path, assignment: str):
    """Run ``nb`` in a fresh kernel in grading mode (nbconvert) with ``SOLUTION_ENV``; returns the executed
    notebook."""
    workdir.mkdir(parents=True, exist_ok=True)
    notebook_in = workdir / f"{assignment}.ipynb"
    with open(notebook_in, "w", encoding="utf-8") as handle:
        nbformat.write(nb, handle)
    command = [
        sys.executable,
        "-m",
        "nbconvert",
        "--to",
        "notebook",
        "--execute",
        "--log-level=WARN",
        f"--ExecutePreprocessor.timeout={CELL_TIMEOUT}",
        "--ExecutePreprocessor.record_timing=False",
        "--ExecutePreprocessor.kernel_name=python3",
        "--output",
        "executed.ipynb",
        "--output-dir",
        str(workdir),
        str(notebook_in),
    ]
    env = tool_env(SOLUTION_ENV, package_on_path=False)
    run_tool(command, workdir, env, f"{assignment}: executing the solution notebook in grading mode")
    return notebooks.read(workdir / "executed.ipynb")


def optional_sections(text: str, source_nb) -> list[tuple[str, str, str]]:
    """(cell id, prompt, body) of each section of an optional-answers file (``Assignment.optional_answers_path``).

    A section starts at a ``## <cell id>`` line naming the answer cell of an optional, ungraded question in
    the source; its prompt is the markdown cell before that cell. Text before the first section is the file's
    own note and is left out. Raises ValueError for an id that is not an ungraded cell of the source."""
    sections, current = [], None
    for line in text.split("\n"):
        if line.startswith("## "):
            current = [line[3:].strip(), []]
            sections.append(current)
        elif current is not None:
            current[1].append(line)
    cells = {cell.get("id"): index for index, cell in enumerate(source_nb.cells)}
    found = []
    for cell_id, body in sections:
        index = cells.get(cell_id)
        if index is None or notebooks.nbgrader(source_nb.cells[index]).get("grade"):
            raise ValueError(
                f"optional answers: '## {cell_id}' names no ungraded cell of the source notebook "
                "(a section's heading is the id of the optional question's answer cell)"
            )
        prompt = next((c.source.strip() for c in reversed(source_nb.cells[:index]) if c.cell_type == "markdown"), "")
        found.append((cell_id, prompt, "\n".join(body).strip()))
    return found


def model_answers(source_nb, assignment: str, title: str, optional: str = "") -> str:
    """Markdown: each written question's prompt, model answer and mark scheme; then, from ``optional`` (the
    text of the staff-only optional-answers file), each optional question's prompt and model answer."""
    out = [
        f"# {title}: model answers for the written questions",
        "",
        f"Generated by `course release` from `source/{assignment}/`; do not edit.",
        "",
        "> "
        + GRADING_RUN_NOTE.replace(
            "Staff copy: every output below",
            "The solution notebook beside this file is a staff copy: every output in it",
        ),
        "",
    ]
    written = 0
    for index, cell in enumerate(source_nb.cells):
        if not notebooks.is_manually_graded(cell):
            continue
        written += 1
        meta = notebooks.nbgrader(cell)
        prompt = next(
            (
                c.source.strip()
                for c in reversed(source_nb.cells[:index])
                if c.cell_type == "markdown" and not notebooks.is_manually_graded(c)
            ),
            "",
        )
        scheme, rest = notebooks.split_regions(cell.source, *notebooks.MARK_SCHEME)
        rest = "\n".join(rest)
        if notebooks.has_marker(rest, notebooks.SOLUTION):
            rest = "\n".join(notebooks.split_regions(rest, *notebooks.SOLUTION)[0])
        points = float(meta.get("points", 0))
        out += [
            f"## {meta.get('grade_id')} ({points:g} point{'' if points == 1 else 's'})",
            "",
            "### Prompt",
            "",
            prompt or "(no prompt cell before the answer)",
            "",
            "### Model answer",
            "",
            rest.strip() or "(none)",
            "",
            "### Mark scheme",
            "",
            "\n".join(scheme).strip() or "(none)",
            "",
        ]
    if not written:
        out += ["This assignment has no written questions.", ""]
    for cell_id, prompt, body in optional_sections(optional, source_nb):
        out += [
            f"## {cell_id} (optional, no points)",
            "",
            "### Prompt",
            "",
            prompt or "(no prompt cell before the answer)",
            "",
            body or "(none)",
            "",
        ]
    return "\n".join(out + cited_elsewhere(source_nb, "\n".join(out)))


def cited_elsewhere(source_nb, answers: str) -> list[str]:
    """Lines that end model_answers.md with the footnotes it uses but does not define: those a prompt or an
    answer cites from a cell students see (a notebook's Sources cell), so that every footnote resolves where
    a TA reads it. Empty when every footnote is defined in the answers themselves."""
    defined = {d.key for d in claims.definitions_in(claims.Text("answers", answers, True))}
    wanted = [key for key in dict.fromkeys(claims.MARKER.findall(answers)) if key not in defined]
    found = {
        d.key: d.text
        for cell in source_nb.cells
        if cell.cell_type == "markdown" and not notebooks.is_manually_graded(cell)
        for d in claims.definitions_in(claims.Text("cell", cell.source, False))
    }
    lines = [f"[^{key}]: {found[key]}" for key in wanted if key in found]
    if not lines:
        return []
    return ["## Sources cited above", "", "From the notebook's cells that students see.", "", *lines, ""]


# What a TA must know before reading a solution notebook's outputs (the notebook's first cell after the
# title, and the head of model_answers.md).
GRADING_RUN_NOTE = (
    "**Staff copy: every output below comes from a grading-mode run on tiny data.** `course release` "
    "executed this notebook with `NBGRADER_EXECUTION` set, as the graders do: a small synthetic corpus "
    "instead of the hub's datasets, randomly initialised tiny models instead of the pretrained checkpoints, "
    "and a few training steps. The accuracies, losses, timings, samples and plots it printed say nothing "
    "about a student's Colab run. The written questions' model answers give the figures of real runs and "
    "where each comes from; grade a student's written answer against the evidence outputs they submitted "
    "(`course written`, or formgrader, shows them)."
)


def with_grading_run_note(nb):
    """``nb`` with ``GRADING_RUN_NOTE`` as a markdown cell right after its first (title) cell."""
    note = nbformat.v4.new_markdown_cell(GRADING_RUN_NOTE)
    if "id" in note:
        note["id"] = "grading-run-note"  # fixed, so regenerating gives the same bytes
    nb.cells.insert(1, note)
    return nb


def solution_notebook(source_nb, workdir: Path, assignment: str, run: bool = True):
    """The source without its hidden tests, executed in grading mode in ``workdir`` (unless ``run`` is
    false), normalized, with the environment it was executed in recorded and a note at its top saying what
    its outputs are."""
    nb = without_hidden_tests(source_nb)
    if run:
        nb = execute(nb, workdir, assignment)
    _normalized(nb, source_nb.metadata)
    if run:
        nb.metadata.setdefault("course", {})["executed_with"] = execution_environment()
    return with_grading_run_note(nb)  # also unexecuted: a quick regeneration must compare equal


def build_solutions(stage: Stage, run: bool) -> None:
    source_nb = notebooks.read(stage.source_nb_path)
    nb = solution_notebook(source_nb, stage.scratch / "solutions", stage.assignment, run)
    stage.solutions_folder.mkdir(parents=True)
    with open(stage.solutions_folder / stage.notebook, "w", encoding="utf-8") as handle:
        nbformat.write(nb, handle)
    hw = stage.course.assignment(stage.assignment)
    optional = hw.optional_answers_path.read_text(encoding="utf-8") if hw.optional_answers_path.is_file() else ""
    try:
        answers = model_answers(source_nb, stage.assignment, hw.title, optional)
    except ValueError as error:
        raise StepFailed(f"{stage.course.display(hw.optional_answers_path)}: {error}") from None
    (stage.solutions_folder / "model_answers.md").write_text(answers, encoding="utf-8")
