"""Sphinx configuration of the staff documentation (`make docs`: sphinx-build -W, offline).

Pages are MyST Markdown. The reference pages and the benchmark figures are generated at build time by the
extensions in docs/_ext/ (course_reference.py, benchmark_figures.py) from the code and
benchmarks/results/, so no generated text is ever committed. Nothing is fetched: no intersphinx, no remote
images, the theme Sphinx ships (alabaster).
"""

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS.parent), str(DOCS / "_ext")]  # the course's package from this checkout, then the extensions

project = "Transformers and modern NLP: course assignments"
author = "the course staff"
extensions = ["myst_parser", "course_reference", "benchmark_figures"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext"]
myst_enable_extensions = ["substitution", "colon_fence", "deflist"]
myst_heading_anchors = 3
html_theme = "alabaster"
html_theme_options = {
    "description": "Release, grade and export the course's notebook assignments",
    "fixed_sidebar": True,
}
html_sidebars = {"**": ["about.html", "navigation.html", "searchbox.html"]}
html_static_path = []
html_copy_source = False
suppress_warnings = []


def check_docs_lock(app, config) -> None:
    """The docs tools must be exactly locks/docs.txt (and the Python's lock for what both pin): a build with
    other versions stops, so what CI builds is what the lock records."""
    from sphinx.errors import ConfigError

    from assignments import locks as lock

    pinned = {**lock.read(lock.lock_path()), **lock.read(lock.docs_lock_path())}
    installed = lock.installed_closure(lock.docs_requirements())
    moved = lock.compare({name: pinned.get(name, "not at all") for name in installed}, installed, "installed")
    if moved:
        raise ConfigError(
            "the docs tools differ from locks/docs.txt and this Python's lock: "
            + "; ".join(moved)
            + " (make docs installs them; course lock --docs moves the lock)"
        )


def setup(app):
    app.connect("config-inited", check_docs_lock)
