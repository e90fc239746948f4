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
