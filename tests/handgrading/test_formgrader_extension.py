"""formgrader's server extension without a server (assignments/handgrading/formgrader_extension.py): the pages' inline
scripts and the Content-Security-Policy built from them. tests/handgrading/test_formgrader.py runs it in a browser."""

from __future__ import annotations

import nbformat
import pytest

from assignments.handgrading import formgrader_extension as extension


@pytest.fixture(scope="module")
def pages():
    """(page environment, notebook exporter, nbgrader's template folder) as the extension sets them up."""
    from nbgrader.server_extensions.formgrader import handlers
    from traitlets.config import Config

    # What nbgrader's formgrader gives its exporter (FormgradeExtension.build_extra_config).
    config = Config(
        {"HTMLExporter": {"template_name": "formgrade", "extra_template_basedirs": [handlers.template_path]}}
    )
    environment = extension.page_environment(handlers.template_path)
    return environment, extension.notebook_exporter(config), handlers.template_path


def test_every_formgrader_page_runs_only_constant_inline_scripts_which_the_policy_names(pages):
    hashes = extension.page_script_hashes(*pages, base_url="")
    policy = extension.content_security_policy(hashes, "/")
    scripts = next(d for d in policy.split("; ") if d.startswith("script-src "))
    assert "'unsafe-inline'" not in scripts and "'unsafe-eval'" not in scripts and "'self'" not in scripts
    assert scripts.count("'sha256-") == len(hashes) >= 2, "the page values loader and formgrade's script"
    assert "http://127.0.0.1:*/formgrader/static/" in scripts
    for directive in ("default-src 'none'", "base-uri 'none'", "form-action 'self'", "img-src 'self' data:"):
        assert directive in policy.split("; "), f"the policy lacks {directive}"


def test_a_page_that_prints_a_value_into_an_inline_script_stops_the_server_from_starting(pages):
    from jinja2 import ChoiceLoader, DictLoader

    environment, exporter, templates = pages
    leaky = environment.overlay(
        loader=ChoiceLoader(
            [
                DictLoader({"gradebook_notebooks.tpl": '<script>var id = "{{ assignment_id }}";</script>'}),
                environment.loader,
            ]
        )
    )
    with pytest.raises(RuntimeError, match="gradebook_notebooks.tpl"):
        extension.page_script_hashes(leaky, exporter, templates, base_url="")


def test_formgrader_pages_escape_what_they_print(pages):
    environment, exporter, _ = pages
    name = '<img src=x onerror="go()">'
    page = environment.get_template("manage_students_assignments.tpl").render(base_url="", student_id=name)
    assert name not in page and "&lt;img src=x" in page
    resources = {"base_url": "", "index": 0, "total": 1, "first_name": name, "last_name": name, "student": "s"}
    html, _ = exporter.from_notebook_node(nbformat.v4.new_notebook(), resources=resources)
    assert name not in html and "&lt;img src=x" in html
