"""The reference pages, generated from the code at each build: never a committed copy.

A page asks for a generated part with a MyST comment line of its own, ``% generated: <name>``; when Sphinx
reads the page, that line is replaced by the Markdown the generator of that name writes (``GENERATORS``).
Without this extension the line is a comment and shows nothing. An unknown name, or a part of the code a
generator cannot describe (a record field without a ``#:`` comment, a command without help), stops the
build: ``make docs`` runs with warnings as errors.

- ``cli``: every ``course`` command's help, from ``assignments.cli.build_parser`` (argparse's own text);
- ``settings``: every ``[tool.course]`` key, from ``assignments.settings.SETTINGS``;
- ``findings``: the finding codes, from ``assignments.results.findings.CATALOGUE``;
- ``record``: the result record's fields and their ``#:`` comments, from ``assignments.results.model``;
- ``exports``: each ``course export`` format (``assignments.exports.WRITERS``) with its module's docstring,
  and the JSON that Gradescope's and PrairieLearn's writers make of an example record;
- ``packages``: the package's modules and folders, each with the first sentence of its docstring.
- ``floors``: the package's floors (tests/test_wings.py), top first, each wing with its docstring's first sentence.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import json
import os
import re
import typing
from pathlib import Path

from sphinx.errors import ExtensionError
from sphinx.util import logging

LOG = logging.getLogger(__name__)
MARKER = re.compile(r"^% generated: *([\w-]+) *$", re.M)
REPO = Path(__file__).resolve().parents[2]


def fence(text: str, language: str = "text") -> str:
    ticks = "`" * max(3, max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    return f"{ticks}{language}\n{text.rstrip()}\n{ticks}\n"


CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)


def prose(text) -> str:
    """Text from the code as Markdown: ``<`` and ``>`` outside code spans as entities, so a placeholder such
    as ``grades/<term>/`` shows rather than being read as an HTML tag."""
    parts, at = [], 0
    for match in CODE_SPAN.finditer(str(text)):
        parts.append(str(text)[at : match.start()].replace("<", "&lt;").replace(">", "&gt;"))
        parts.append(match.group(0))
        at = match.end()
    parts.append(str(text)[at:].replace("<", "&lt;").replace(">", "&gt;"))
    return "".join(parts)


def cell(text) -> str:
    """A Markdown table cell: one line, pipes escaped, placeholders kept (``prose``)."""
    return prose(" ".join(str(text).split())).replace("|", "\\|")


def first_sentence(doc: str | None) -> str:
    text = " ".join((doc or "").split())
    match = re.match(r"(.+?[.:])(\s|$)", text)
    return (match.group(1) if match else text).rstrip(":.") + "." if text else ""


# --- the command line --------------------------------------------------------------------------------------


def cli() -> str:
    import argparse

    from assignments.cli import build_parser

    os.environ["COLUMNS"] = "100"  # argparse wraps help at the terminal's width: the same width every build
    parser = build_parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    helps = {action.dest: action.help for action in commands._choices_actions}
    out = [
        "The top level, `course --help`:\n",
        fence(parser.format_help()),
    ]
    seen = set()
    for name, sub in commands.choices.items():
        if id(sub) in seen:  # an alias of a command already shown
            continue
        seen.add(id(sub))
        summary = helps.get(name) or first_sentence(sub.description)
        if not summary:
            raise ExtensionError(f"course {name} has neither a help line nor a description (assignments/cli)")
        summary = cell(summary)
        out += [f"\n## course {name}\n", f"{summary[:1].upper()}{summary[1:].rstrip('.')}.\n", fence(sub.format_help())]
    return "\n".join(out)


# --- settings ----------------------------------------------------------------------------------------------


def toml_value(value) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def settings() -> str:
    from assignments.settings import SETTINGS

    out = []
    for entry in SETTINGS:
        table, _, key = entry.key.rpartition(".")
        header = f"[tool.course{'.' + table if table else ''}]"
        out.append(f"\n## `{entry.key}`\n")
        facts = [f"In `{header}`", entry.kind]
        facts.append(f"default `{toml_value(entry.default)}`" if entry.default is not None else "no default")
        if entry.choices:
            facts.append("one of " + ", ".join(f"`{toml_value(c)}`" for c in entry.choices))
        facts.append(f"used by `{entry.read_by}`")
        out.append("*" + prose("; ".join(facts)) + ".*\n")
        out.append(prose(entry.meaning) + "\n")
    return "\n".join(out)


# --- findings ----------------------------------------------------------------------------------------------


def findings() -> str:
    from assignments.results.findings import CATALOGUE

    rows = ["| code | severity | who reads its message | what it means |", "| --- | --- | --- | --- |"]
    for code, kind in CATALOGUE.items():
        severity = " or ".join(kind.severity) if isinstance(kind.severity, tuple) else kind.severity
        rows.append(f"| `{code}` | {severity} | {kind.audience} | {cell(kind.meaning)} |")
    return "\n".join(rows) + "\n"


# --- the result record -------------------------------------------------------------------------------------

RECORD_CLASSES = ("SubmissionResult", "QuestionResult", "TestResult", "Finding", "Evidence")


def type_text(annotation: str, module) -> str:
    """A field's type as written, with a Literal alias of the module spelled out as its choices."""
    alias = getattr(module, annotation, None)
    if typing.get_origin(alias) is typing.Literal:
        return " \\| ".join(f'"{choice}"' for choice in typing.get_args(alias))
    return cell(annotation)


def record() -> str:
    from sphinx.pycode import ModuleAnalyzer

    module = importlib.import_module("assignments.results.model")
    comments = ModuleAnalyzer.for_module(module.__name__).find_attr_docs()
    out = []
    for name in RECORD_CLASSES:
        cls = getattr(module, name)
        out.append(f"\n## `{name}`\n")
        if cls.__doc__ and not cls.__doc__.startswith(f"{name}("):
            out.append(prose(" ".join(cls.__doc__.split())) + "\n")
        out += ["| field | type | default | meaning |", "| --- | --- | --- | --- |"]
        for field in dataclasses.fields(cls):
            doc = " ".join(" ".join(comments.get((name, field.name), [])).split())
            if not doc:
                raise ExtensionError(f"results/model.py: {name}.{field.name} has no #: comment to document it")
            if field.default is not dataclasses.MISSING:
                default = f"`{json.dumps(field.default)}`"
            elif field.default_factory is not dataclasses.MISSING:
                default = f"`{json.dumps(field.default_factory())}`"
            else:
                default = "required"
            out.append(f"| `{field.name}` | {type_text(str(field.type), module)} | {default} | {cell(doc)} |")
    return "\n".join(out) + "\n"


# --- export formats ----------------------------------------------------------------------------------------


def example_record():
    """A made-up record of the toy course's shape (one autograded question, one written), for the examples."""
    from assignments.results.model import Finding, QuestionResult, SubmissionResult, TestResult

    tests = [
        TestResult("test_add_tensors", "add_tests", 1.0, 1.0, "passed", "", 0.02),
        TestResult(
            "test_add_numbers", "add_tests", 0.0, 1.0, "failed", "add(2, 5) should be the int 7; got int: -3", 0.01
        ),
    ]
    return SubmissionResult(
        student="1002",
        assignment="toy",
        door="standalone",
        source_file="toy.ipynb",
        questions=[
            QuestionResult("add_tests", "autograded", 2.0, 1.0, tests, title="Toy assignment · Add"),
            QuestionResult("scale_written", "manual", 1.0, None, [], title="Toy assignment · Scale (written)"),
        ],
        findings=[Finding("intake-late", "toy.ipynb was submitted late", "info")],
        timings={"total_s": 3.1},
    )


def writer_module(writer) -> str:
    """The module of ``assignments.exports`` a writer hands its job to (its ``from assignments.exports.<module>
    import``)."""
    tree = ast.parse(inspect.getsource(writer).lstrip())
    prefix = "assignments.exports."
    found = [
        node.module.removeprefix(prefix)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(prefix)
    ]
    if not found:
        raise ExtensionError(f"export writer {writer.__name__} imports no module of assignments.exports")
    return found[0]


def exports() -> str:
    from assignments import exports as package
    from assignments.exports import gradescope
    from assignments.platforms.prairielearn import results as prairielearn

    out = []
    for name, writer in package.WRITERS.items():
        module = importlib.import_module(f"assignments.exports.{writer_module(writer)}")
        out.append(f"\n## `{name}`\n")
        out.append(
            f"Written by `assignments/exports/{module.__name__.rsplit('.', 1)[1]}.py`, under `exports/{name}/`.\n"
        )
        out.append(prose(inspect.cleandoc(module.__doc__ or "")) + "\n")
    out.append("\n## PrairieLearn's `results.json`\n")
    out.append(
        "Not a `course export` format: the grader image's PrairieLearn entry point (`course prairielearn`) "
        "writes it for each job. Written by `assignments/platforms/prairielearn/results.py`.\n"
    )
    out.append(prose(inspect.cleandoc(prairielearn.__doc__ or "")) + "\n")
    record = example_record()
    out.append("\n## Examples\n")
    out.append(
        "What the writers make of one record (values made up at build time: two tests of one question, one "
        "passed; a written answer not graded yet; a late flag), run through the real functions.\n"
    )
    out.append("Gradescope's `results.json` (`assignments.exports.gradescope.results_json`):\n")
    out.append(fence(json.dumps(gradescope.results_json(record, "visible"), indent=2, ensure_ascii=False), "json"))
    out.append("PrairieLearn's `results.json` (`assignments.platforms.prairielearn.results.results_json`):\n")
    out.append(fence(json.dumps(prairielearn.results_json(record), indent=2, ensure_ascii=False), "json"))
    out.append("The record itself, as `results/<student>.json` stores it:\n")
    out.append(fence(record.to_json(), "json"))
    return "\n".join(out)


# --- the package's layout ----------------------------------------------------------------------------------


def packages() -> str:
    root = REPO / "assignments"
    rows = ["| module or folder | what it holds |", "| --- | --- |"]
    for path in sorted(root.iterdir()):
        if path.name.startswith(("_", ".")) or not (path.suffix == ".py" or (path / "__init__.py").is_file()):
            continue
        source = path / "__init__.py" if path.is_dir() else path
        doc = ast.get_docstring(ast.parse(source.read_text(encoding="utf-8")))
        if not doc:
            raise ExtensionError(f"{source.relative_to(REPO)} has no docstring to describe it")
        shown = f"`{path.name}/`" if path.is_dir() else f"`{path.name}`"
        rows.append(f"| {shown} | {cell(first_sentence(doc))} |")
    return "\n".join(rows) + "\n"


def floors() -> str:
    """The package's floors, top first, as tests/test_wings.py holds them: each wing with what it holds."""
    from tests.test_wings import FLOORS

    root = REPO / "assignments"
    rows = ["| floor | wings (each imports only from its own floor and the ones below) |", "| ---: | --- |"]
    for number, floor in reversed(list(enumerate(FLOORS))):
        shown = []
        for wing in sorted(floor):
            if wing == "ground":
                shown.append("the ground: the course model, settings, locks and the small modules all share")
                continue
            source = root / wing / "__init__.py" if (root / wing).is_dir() else root / f"{wing}.py"
            doc = ast.get_docstring(ast.parse(source.read_text(encoding="utf-8")))
            name = f"`{wing}/`" if (root / wing).is_dir() else f"`{wing}.py`"
            shown.append(f"{name}: {first_sentence(doc)}" if doc else name)
        rows.append(f"| {number} | {cell('; '.join(shown))} |")
    return "\n".join(rows) + "\n"


def grading_folders() -> str:
    root = REPO / "assignments" / "grading"
    rows = ["| folder | what it holds |", "| --- | --- |"]
    for path in sorted(p for p in root.iterdir() if (p / "__init__.py").is_file()):
        doc = ast.get_docstring(ast.parse((path / "__init__.py").read_text(encoding="utf-8")))
        rows.append(f"| `grading/{path.name}/` | {cell(first_sentence(doc))} |")
    return "\n".join(rows) + "\n"


# --- Colab's runtimes ---------------------------------------------------------------------------------------

COLAB_SHOWN = ("torch", "transformers", "datasets", "huggingface_hub", "numpy", "ipython", "ipykernel", "matplotlib")


def colab_runtimes() -> str:
    """The rehearsed Colab runtimes, from their pins files (tests/colab_runtimes/*.txt): header and versions."""
    folder = REPO / "tests" / "colab_runtimes"
    files = [folder / "current.txt", folder / "previous.txt"]
    header, pins = {}, {}
    for path in files:
        text = path.read_text(encoding="utf-8")
        header[path] = dict(re.findall(r"^# (runtime|python|source): *(.+)$", text, re.M))
        pins[path] = {
            name.lower().replace("-", "_"): version.strip()
            for name, version in re.findall(r"^([A-Za-z0-9_.-]+)==([^\s#]+)", text, re.M)
        }
        if "runtime" not in header[path] or "python" not in header[path]:
            raise ExtensionError(f"{path.relative_to(REPO)} has no runtime or python line in its header")
    rows = ["| | " + " | ".join(f"`{p.name}`" for p in files) + " |", "| --- |" + " --- |" * len(files)]
    rows.append("| Colab runtime version | " + " | ".join(cell(header[p]["runtime"]) for p in files) + " |")
    rows.append("| Python | " + " | ".join(cell(header[p]["python"]) for p in files) + " |")
    for name in COLAB_SHOWN:
        rows.append(f"| {name} | " + " | ".join(pins[p].get(name, "not installed") for p in files) + " |")
    sources = "; ".join(f"`{p.name}`: {cell(header[p].get('source', 'no source line'))}" for p in files)
    return "\n".join(rows) + f"\n\nRead from Colab's published package lists ({sources}).\n"


# name -> function writing that part's Markdown; other extensions add theirs (benchmark_figures.py)
GENERATORS = {
    "cli": cli,
    "settings": settings,
    "findings": findings,
    "record": record,
    "exports": exports,
    "packages": packages,
    "grading-folders": grading_folders,
    "floors": floors,
    "colab-runtimes": colab_runtimes,
}


def fill(app, docname: str, source: list[str]) -> None:
    def generated(match: re.Match) -> str:
        name = match.group(1)
        if name not in GENERATORS:
            raise ExtensionError(f"{docname}: no generator named {name!r} (docs/_ext)")
        return GENERATORS[name]()

    source[0] = MARKER.sub(generated, source[0])


def setup(app):
    app.connect("source-read", fill)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
