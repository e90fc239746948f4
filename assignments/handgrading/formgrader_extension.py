"""The Jupyter server extension ``course formgrader`` runs: nbgrader's formgrader, safe to show submissions in.

Formgrader runs in the TA's browser with the TA's session, and nbgrader's API behind it can rewrite any
grade or comment; a script from a submission that ran there could do all of that (docs/security.md).
This extension loads nbgrader's formgrader (and none of nbgrader's student-side extensions), then:

- renders every notebook page through ``inert.Inert``, whatever notebook is in ``autograded/``, with
  header and navigation macros of its own: names and ids escaped, no inline event handlers, no MathJax
  from a CDN, the page's values handed to formgrader's scripts as JSON data (``page_values``) instead
  of inline code;
- renders formgrader's other pages with autoescaping and the same page values;
- serves every response with a Content-Security-Policy: scripts only from formgrader's static folder
  and the constant inline scripts of these pages (by hash, computed when the server starts from the
  pages themselves, which must not differ from page to page), nothing from another site, no plugins,
  frames or ``<base>``.

``FormgraderOnly`` (the server's authorizer, see ``formgrader.start``) refuses Jupyter's own APIs
(kernels, terminals, contents, files, sessions, shutdown), which formgrader does not use: a page cannot
start a kernel as the instructor or read the course folder through them. ``NOT_HERE`` refuses the API
calls behind formgrader's own buttons that run nbgrader's steps (generate, release, collect, autograde,
feedback): nbgrader's autograde would run a student's notebook outside the course's sandbox, as the
instructor, and the course has its own commands for each. What is left is grading: reading submissions,
saving scores, comments and flags.

With several TAs (``graders.TaTokens``) the server's log names the TA behind every grade, comment or flag
saved. The names TAs' browsers use for the server (``HOSTS_VARIABLE``, set by ``formgrader.start`` for an
address other machines reach) join the loopback names in the policy's script sources.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from html.parser import HTMLParser
from pathlib import Path

from jupyter_server.auth.authorizer import Authorizer
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.utils import url_path_join

HOSTS_VARIABLE = "COURSE_FORMGRADER_HOSTS"  # the names TAs' browsers use, comma-separated (formgrader.start)

# A page's values as JSON data (not code), then one constant script that makes them the global variables
# formgrader's scripts read. htmlsafe ``tojson`` writes <, > and & as escapes, so the data cannot end its
# element.
PAGE_VALUES_JS = (
    '(function () { var values = JSON.parse(document.getElementById("course-page-values").textContent);'
    " Object.keys(values).forEach(function (name) { window[name] = values[name]; }); })();"
)
PAGE_VALUES = f"""{{% macro page_values(values) -%}}
<script type="application/json" id="course-page-values">{{{{ values | tojson }}}}</script>
<script>{PAGE_VALUES_JS}</script>
{{%- endmacro %}}"""

FORMGRADE_SCRIPTS = [
    "node_modules/jquery/dist/jquery.min.js",
    "node_modules/jquery-color/dist/jquery.color.min.js",
    "node_modules/underscore/underscore-min.js",
    "node_modules/backbone/backbone-min.js",
    "node_modules/bootstrap/dist/js/bootstrap.min.js",
    "node_modules/autosize/dist/autosize.min.js",
    "js/backbone_xsrf.js",
    "js/formgrade_keyboardmanager.js",
    "js/formgrade_models.js",
    "js/formgrade.js",
    "js/utils.js",
]
# The name toggle of the notebook page, bound here instead of in onclick attributes; and a stand-in for
# MathJax (a foreign script, not loaded): formgrade.js waits for its typesetting to end before it selects
# the first score box, and here there is none to wait for.
FORMGRADE_JS = """window.MathJax = {loaded: true, Hub: {Startup: {signal: {Interest: function (listener) {
  setTimeout(function () { listener("End"); }, 0);
}}}}};
function toggle_name(on) {
  $(".name-shown, .name-hidden").tooltip("hide");
  $(on ? ".name-shown" : ".name-hidden").show();
  $(on ? ".name-hidden" : ".name-shown").hide();
}
$(document).ready(function () {
  $("span.glyphicon.name-hidden").tooltip({title: "Show student name", placement: "bottom", trigger: "hover"})
    .on("click", function () { toggle_name(true); });
  $("span.glyphicon.name-shown").tooltip({title: "Hide student name", placement: "bottom", trigger: "hover"})
    .on("click", function () { toggle_name(false); });
});"""

# The notebook page's header and navigation (nbgrader's formgrade template imports them by this name).
# nbconvert's templates do not autoescape: every value is escaped here by hand.
FORMGRADE_MACROS = (
    """{% from 'course_page_values.j2' import page_values %}
{% macro header(resources) -%}
{%- set static = (resources.base_url ~ '/formgrader/static/') | e -%}
<meta charset="utf-8" />
<title>{{ resources.notebook_id | e }}</title>
{{ page_values({"submission_id": resources.submission_id, "notebook_id": resources.notebook_id,
                "assignment_id": resources.assignment_id, "base_url": resources.base_url ~ "/formgrader"}) }}
"""
    + "".join(f'<script src="{{{{ static }}}}{script}"></script>\n' for script in FORMGRADE_SCRIPTS)
    + """<script>"""
    + FORMGRADE_JS
    + """</script>
<link rel="stylesheet" href="{{ static }}node_modules/bootstrap/dist/css/bootstrap.min.css" />
{%- endmacro %}
{% macro nav(resources) -%}
{%- set base = (resources.base_url ~ '/formgrader') | e -%}
{%- set submission = base ~ '/submissions/' ~ (resources.submission_id | e) -%}
{%- set assignment = resources.assignment_id | e -%}
{%- set notebook = resources.notebook_id | e -%}
<nav class="navbar navbar-default navbar-fixed-top" role="navigation">
  <div class="container">
    <div class="col-md-2">
      <ul class="nav navbar-nav navbar-left">
        <li class="previous"><a data-toggle="tooltip" data-trigger="hover" data-placement="right"
          title="{{ resources.index | e }} remaining" href="{{ submission }}/prev">&larr; Prev</a></li>
      </ul>
    </div>
    <div class="col-md-8">
      <ul class="nav text-center">
        <ul class="breadcrumb">
          <li><a href="{{ base }}/gradebook">Manual Grading</a></li>
          <li><a href="{{ base }}/gradebook/{{ assignment }}">{{ assignment }}</a></li>
          <li><a href="{{ base }}/gradebook/{{ assignment }}/{{ notebook }}">{{ notebook }}</a></li>
          <li class="active">
            <span class="name-hidden">Submission #{{ resources.index + 1 }}</span>
            <span class="name-shown">
              {%- if resources.last_name and resources.first_name -%}
              {{ resources.last_name | e }}, {{ resources.first_name | e }}
              {%- else -%}
              {{ resources.student | e }}
              {%- endif -%}
            </span>
            <span class="glyphicon glyphicon-eye-open name-hidden" aria-hidden="true"></span>
            <span class="glyphicon glyphicon-eye-close name-shown" aria-hidden="true"></span>
          </li>
        </ul>
      </ul>
    </div>
    <div class="col-md-2">
      <ul class="nav navbar-nav navbar-right">
        <li class="next"><a class="tabbable" data-trigger="hover" data-toggle="tooltip" data-placement="left"
          title="{{ (resources.total - (resources.index + 1)) | e }} remaining"
          href="{{ submission }}/next">Next &rarr;</a></li>
      </ul>
    </div>
  </div>
</nav>
{%- endmacro %}"""
)

# nbconvert's MathJax comes from a CDN: a foreign script. Formulas are shown as their TeX source.
NO_MATHJAX = "{% macro mathjax(url=None) %}{% endmacro %}"


def _page(template: str, values: str | None = None, script: str | None = None, **blocks: str) -> str:
    """nbgrader's page ``template`` (kept under the prefix ``nbgrader/``) with its inline values script
    replaced by ``page_values`` and the named ``blocks`` replaced; its other blocks unchanged."""
    written = [f"{{% extends 'nbgrader/{template}' %}}"]
    if values is not None:
        loaded = f'\n<script src="{{{{ base_url }}}}/formgrader/static/js/{script}"></script>' if script else ""
        head = f"{{% from 'course_page_values.j2' import page_values %}}{{{{ page_values({values}) }}}}{loaded}"
        blocks = {"head": head, **blocks}
    written += [f"{{% block {name} %}}{body}{{% endblock {name} %}}" for name, body in blocks.items()]
    return "\n".join(written)


def _clicked(element: str, element_id: str, call: str) -> str:
    """``element`` (whose id is ``element_id``) running ``call`` when clicked, bound by a constant script:
    the CSP lets no onclick attribute run."""
    bind = f'document.getElementById("{element_id}").addEventListener("click", function (event) {{ {call}; }});'
    return f"{element}\n<script>{bind}</script>"


def _add_row(columns: int, element_id: str, text: str, call: str) -> str:
    """The last row of a manage page's table: its link to add an assignment or a student."""
    link = f'<a href="#" id="{element_id}">{text}</a>'
    clicked = _clicked(link, element_id, f"event.preventDefault(); {call}")
    return (
        f'<tr><td colspan="{columns}"><span class="glyphicon glyphicon-plus" aria-hidden="true"></span> '
        f"{clicked}</td></tr>"
    )


PAGE_TEMPLATES = {
    "course_page_values.j2": PAGE_VALUES,
    # formgrader's 404 page imports its macros under this name; without it, that page fails with a 500.
    "formgrade_macros.tpl": FORMGRADE_MACROS,
    "gradebook_notebook_submissions.tpl": _page(
        "gradebook_notebook_submissions.tpl",
        '{"assignment_id": assignment_id, "notebook_id": notebook_id}',
        "gradebook_notebook_submissions.js",
        messages=_clicked('<button id="toggle_names">Show All Names</button>', "toggle_names", "toggleAllNames()"),
    ),
    "gradebook_notebooks.tpl": _page(
        "gradebook_notebooks.tpl", '{"assignment_id": assignment_id}', "gradebook_notebooks.js"
    ),
    "manage_assignments.tpl": _page(
        "manage_assignments.tpl",
        '{"url_prefix": url_prefix, "default_timezone": default_timezone}',
        "manage_assignments.js",
        table_footer=_add_row(11, "course-add-assignment", "Add new assignment...", "createAssignmentModal()"),
    ),
    "manage_students.tpl": _page(
        "manage_students.tpl",
        table_footer=_add_row(5, "course-add-student", "Add new student...", "createStudentModal()"),
    ),
    "manage_students_assignments.tpl": _page(
        "manage_students_assignments.tpl", '{"student_id": student_id}', "manage_students_assignments.js"
    ),
    "manage_students_notebook_submissions.tpl": _page(
        "manage_students_notebook_submissions.tpl",
        '{"student_id": student_id, "assignment_id": assignment_id}',
        "manage_students_notebook_submissions.js",
    ),
    "manage_submissions.tpl": _page(
        "manage_submissions.tpl", '{"assignment_id": assignment_id}', "manage_submissions.js"
    ),
}
NOTEBOOK_TEMPLATES = {
    "course_page_values.j2": PAGE_VALUES,
    "formgrade_macros.html.j2": FORMGRADE_MACROS,
    "mathjax.html.j2": NO_MATHJAX,
}


def page_environment(nbgrader_templates: str):
    """The Jinja environment of formgrader's pages: autoescaping, these pages first, nbgrader's after
    (and under ``nbgrader/``, for the pages here that extend them)."""
    from jinja2 import ChoiceLoader, DictLoader, Environment, FileSystemLoader, PrefixLoader

    nbgrader = FileSystemLoader([nbgrader_templates])
    loader = ChoiceLoader([DictLoader(PAGE_TEMPLATES), PrefixLoader({"nbgrader": nbgrader}), nbgrader])
    return Environment(loader=loader, autoescape=True)


def notebook_exporter(config):
    """formgrader's exporter for a submission's page (nbgrader's ``config``: its formgrade template), with
    the macros above and ``Inert`` among its steps, so whatever notebook is in ``autograded/`` is shown inert."""
    from jinja2 import DictLoader
    from nbconvert.exporters import HTMLExporter

    from assignments.inert import Inert

    return HTMLExporter(config=config, extra_loaders=[DictLoader(NOTEBOOK_TEMPLATES)], preprocessors=[Inert])


# --- the Content-Security-Policy ---------------------------------------------------------------------------


class _InlineScripts(HTMLParser):
    """The text of every inline script element of a page that a browser would run."""

    RUNS = {None, "", "text/javascript", "application/javascript", "module"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.scripts: list[str] = []
        self._current: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "script" and "src" not in attributes and (attributes.get("type") or "").lower() in self.RUNS:
            self._current = []

    def handle_data(self, data):
        if self._current is not None:
            self._current.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._current is not None:
            self.scripts.append("".join(self._current))
            self._current = None


def inline_scripts(page: str) -> list[str]:
    parser = _InlineScripts()
    parser.feed(page)
    parser.close()
    return parser.scripts


def _sample(base_url: str, which: int) -> dict:
    """Values for rendering every page once per sample: the two samples share only the server's base URL,
    so an inline script that shows a page value differs between them."""
    word = f"sample{which}"
    resources = {
        "assignment_id": f"{word}-assignment",
        "notebook_id": f"{word}-notebook",
        "submission_id": f"{word}-submission",
        "student": f"{word}-student",
        "first_name": f"{word}-first",
        "last_name": f"{word}-last",
        "index": which,
        "total": which + 2,
        "base_url": base_url,
        "notebook_path": f"{word}/path",
        "filename": f"{word}.ipynb",
    }
    return {
        **{key: value for key, value in resources.items() if key != "student"},
        "student_id": f"{word}-student",
        "url_prefix": f"{word}-prefix",
        "course_id": f"{word}-course",
        "course_dir": f"{word}-folder",
        "default_timezone": f"{word}-zone",
        "exchange": f"{word}-exchange",
        "current_config": {word: word},
        "error_code": 500 + which,
        "resources": resources,
    }


def page_script_hashes(environment, exporter, nbgrader_templates: str, base_url: str) -> set[str]:
    """CSP hashes of the inline scripts of every formgrader page, rendered twice with different values.
    Raises RuntimeError when a page's inline scripts differ between the two: a hash cannot allow them."""
    import nbformat

    found = []
    for which in (1, 2):
        values = _sample(base_url, which)
        scripts = set()
        for name in sorted(p.name for p in Path(nbgrader_templates).glob("*.tpl")):
            scripts.update((name, s) for s in inline_scripts(environment.get_template(name).render(**values)))
        page, _ = exporter.from_notebook_node(nbformat.v4.new_notebook(), resources=dict(values["resources"]))
        scripts.update(("formgrade", s) for s in inline_scripts(page))
        found.append(scripts)
    if found[0] != found[1]:
        pages = sorted({name for name, _ in found[0] ^ found[1]})
        raise RuntimeError(f"formgrader pages with an inline script that depends on the page: {', '.join(pages)}")
    return {base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode("ascii") for _, s in found[0]}


def content_security_policy(
    script_hashes: set[str], base_url: str, hosts=("127.0.0.1", "localhost"), remote_hosts=()
) -> str:
    """Scripts from formgrader's static folder only (not the rest of this origin: the course folder's
    files are served here too) and the given inline scripts; styles may be inline (formgrader's and
    nbconvert's pages use them); images, fonts and requests stay on this server. ``remote_hosts``: the
    names TAs' browsers use on the network, with the page's own scheme (http, or https behind TLS)."""
    static = [f"http://{host}:*{base_url}formgrader/static/" for host in hosts]
    static += [f"{host}:*{base_url}formgrader/static/" for host in remote_hosts]
    inline = [f"'sha256-{digest}'" for digest in sorted(script_hashes)]
    return "; ".join(
        [
            "default-src 'none'",
            "script-src " + " ".join(static + inline),
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "font-src 'self' data:",
            "connect-src 'self'",
            "form-action 'self'",
            "base-uri 'none'",
            "frame-ancestors 'self'",
            f"report-uri {base_url}api/security/csp-report",
        ]
    )


# --- the extension -----------------------------------------------------------------------------------------


def _jupyter_server_extension_points():
    return [{"module": __name__}]


def _load_jupyter_server_extension(serverapp) -> None:
    from nbgrader.server_extensions.formgrader import handlers
    from nbgrader.server_extensions.formgrader import load_jupyter_server_extension as load_formgrader

    load_formgrader(serverapp)
    settings = serverapp.web_app.settings
    environment = page_environment(handlers.template_path)
    exporter = notebook_exporter(settings["nbgrader_formgrader"].config)
    settings["nbgrader_jinja2_env"] = environment
    settings["nbgrader_exporter"] = exporter
    base_url = serverapp.base_url if serverapp.base_url.endswith("/") else serverapp.base_url + "/"
    hashes = page_script_hashes(environment, exporter, handlers.template_path, base_url.rstrip("/"))
    remote = [host for host in os.environ.get(HOSTS_VARIABLE, "").split(",") if host]
    policy = content_security_policy(hashes, base_url, remote_hosts=[_source_host(h) for h in remote])
    settings.setdefault("headers", {})["Content-Security-Policy"] = policy
    _refuse_first(serverapp.web_app, [(url_path_join(base_url, pattern), NotHere) for pattern in NOT_HERE])
    settings["log_function"] = _saves_logged(settings.get("log_function"), serverapp.log)
    serverapp.log.info("formgrader: submissions rendered inert; Content-Security-Policy: %s", policy)


def _source_host(host: str) -> str:
    """A host as a CSP source expression writes it (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


# formgrader's API calls that run nbgrader's steps rather than grade (its manage pages' buttons).
NOT_HERE = [
    r"/formgrader/api/assignment/[^/]+/(assign|unrelease|release|collect|generate_feedback|release_feedback)",
    r"/formgrader/api/assignment/[^/]+/[^/]+/(generate_feedback|release_feedback)",
    r"/formgrader/api/submission/[^/]+/[^/]+/autograde",
]


class NotHere(JupyterHandler):
    """Refuses one of formgrader's steps: the course runs it with its own commands, in its sandbox."""

    def _refuse(self, *args):
        self.set_status(403)
        self.set_header("Content-Type", "application/json")
        self.finish(
            json.dumps(
                {
                    "success": False,
                    "error": "not from formgrader here: use course release, course autograde or course grade, "
                    "and course export for feedback",
                }
            )
        )

    get = post = put = delete = _refuse


def _refuse_first(web_app, rules) -> None:
    """Add ``rules`` ahead of every handler already added (nbgrader's own, for the same URLs)."""
    web_app.add_handlers(".*$", rules)
    router = web_app.default_router.rules
    router.insert(0, router.pop(-2))  # tornado adds a host's rules just before its catch-all rule


def _saves_logged(earlier, log):
    """Tornado's request log function, also naming the TA behind each change saved through
    formgrader's API (a grade, a comment, a flag)."""

    def log_request(handler) -> None:
        if earlier is not None:
            earlier(handler)
        request = handler.request
        if request.method in ("PUT", "POST") and "/formgrader/api/" in request.path and handler.get_status() < 400:
            user = getattr(handler, "_jupyter_current_user", None)
            who = getattr(user, "username", None) or "an unnamed session"
            log.info("formgrader: %s saved %s %s", who, request.method, request.path)

    return log_request


class FormgraderOnly(Authorizer):
    """Allows formgrader's own pages and API (they check the login themselves) and the browser's CSP
    reports; refuses every Jupyter API, which formgrader does not need."""

    ALLOWED = frozenset({"csp"})

    def is_authorized(self, handler, user, action, resource) -> bool:
        return resource in self.ALLOWED
