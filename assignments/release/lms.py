"""What students receive: the Open-in-Colab link, self-contained release notebooks, LMS bundles.

The Colab URL pattern lives in one place, ``[tool.course] colab_url`` in ``pyproject.toml``, with
``{assignment}`` and ``{notebook}`` (the release notebook's file name) filled in. ``course release`` writes
the link into the first cell (grade_id ``colab_badge``) of the source notebook and therefore of the
release; tests compare every release notebook's link with the pattern.

An LMS bundle is ``dist/lms/<assignment>.zip``: the release notebook(s) plus a short student README with
the Colab link and upload instructions. Zips are deterministic (sorted entries, fixed timestamps).
"""

from __future__ import annotations

import ast
import re
import sys
import zipfile
from pathlib import Path

from assignments.course import REPO, Assignment
from assignments.release import colab_target
from assignments.release.hygiene import COLAB_BADGE_ID, REPO_MODULES, SETUP_ID, imported_modules
from assignments.settings import Settings

BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"
# A link whose text mentions Colab, in markdown ([![Open In Colab](badge.svg)](TARGET), [Open in Colab](TARGET))
# or in HTML (<a href="TARGET" target="_parent"><img src="badge.svg" alt="Open In Colab"/></a>).
_COLAB_LINK = re.compile(r"\[(?P<text>!\[[^\]]*\]\([^)]*\)|[^\[\]]*)\]\((?P<target>[^)\s]*)\)")
_COLAB_HTML = re.compile(
    r"(?P<open><a\s[^>]*?href=\")(?P<target>[^\"]*)(?P<rest>\"[^>]*>)(?P<text>.*?)</a>", re.DOTALL | re.IGNORECASE
)

# Importable on Colab without installing anything (besides the standard library).
COLAB_PREINSTALLED = frozenset(
    {
        "numpy",
        "pandas",
        "scipy",
        "sklearn",
        "matplotlib",
        "seaborn",
        "PIL",
        "requests",
        "IPython",
        "ipywidgets",
        "torch",
        "torchvision",
        "torchaudio",
        "transformers",
        "tokenizers",
        "huggingface_hub",
        "safetensors",
        "datasets",
        "tqdm",
        "google",
    }
)


# --- the Colab link ------------------------------------------------------------------------------------


def colab_pattern(root: Path = REPO) -> str:
    """``[tool.course] colab_url`` from ``root/pyproject.toml``."""
    path = Path(root) / "pyproject.toml"
    value = Settings.read(root).colab_url
    if not value:
        raise ValueError(f"{path}: no [tool.course] colab_url (the Open-in-Colab URL pattern)")
    if "{assignment}" not in value or "{notebook}" not in value:
        raise ValueError(f"{path}: [tool.course] colab_url must contain {{assignment}} and {{notebook}}")
    return value


PLACEHOLDERS = re.compile(r"YOUR[-_]|<[^>]*>|\bOWNER\b|\bexample\.(com|org)\b|\bchangeme\b", re.IGNORECASE)


def colab_problems(root: Path = REPO, *, placeholder_ok: bool = False) -> list[str]:
    """Why ``[tool.course] colab_url`` cannot go to students (empty: it can): missing, malformed, a template
    value (YOUR-ORG, <owner>, example.com) that would send every student to a dead link, or a link into this
    course repository, which holds the answer key (``colab_target``).

    The shipped pyproject.toml holds a placeholder on purpose: ``placeholder_ok`` is for the demo (its
    students are made up) and for runs that give students nothing (``course release --check``); every
    release, bundle and ``course publish`` that reaches students refuses it."""
    try:
        pattern = colab_pattern(root)
    except (OSError, ValueError) as error:
        return [str(error)]
    problems = colab_target.remote_problems(pattern, root)
    if PLACEHOLDERS.search(pattern) and not placeholder_ok:
        problems.append(
            f"[tool.course] colab_url in pyproject.toml is still a placeholder ({pattern}); set it to "
            "where students open the release notebooks: Colab's GitHub link pattern for the student repository "
            "`course publish` fills, its branch and {assignment}/{notebook} (docs/how-to/publish.md)"
        )
    return problems


def colab_url(assignment: str, notebook: str, root: Path = REPO) -> str:
    return colab_pattern(root).format(assignment=assignment, notebook=notebook)


def colab_links(markdown: str) -> list[str]:
    """Targets of the links in ``markdown`` (markdown or HTML) whose text mentions Colab, in order."""
    found = [
        (m.start(), m.group("target"))
        for pattern in (_COLAB_LINK, _COLAB_HTML)
        for m in pattern.finditer(markdown)
        if "colab" in m.group("text").lower()
    ]
    return [target for _, target in sorted(found)]


def badge(url: str) -> str:
    return f"[![Open In Colab]({BADGE_IMAGE})]({url})"


def with_colab_link(markdown: str, url: str) -> str:
    """``markdown`` with every Colab link pointing at ``url``; a badge is added after the title if none."""

    def markdown_link(match):
        if "colab" not in match.group("text").lower():
            return match.group(0)
        return f"[{match.group('text')}]({url})"

    def html_link(match):
        if "colab" not in match.group("text").lower():
            return match.group(0)
        return f"{match.group('open')}{url}{match.group('rest')}{match.group('text')}</a>"

    if colab_links(markdown):
        return _COLAB_HTML.sub(html_link, _COLAB_LINK.sub(markdown_link, markdown))
    lines = markdown.split("\n")
    title, rest = (lines[:1], lines[1:]) if lines and lines[0].startswith("#") else ([], lines)
    body = "\n".join(rest).strip("\n")
    return "\n\n".join(part for part in ("\n".join(title), badge(url), body) if part)


def set_colab_link(nb, assignment: str, notebook: str, root: Path = REPO) -> bool:
    """Point the colab_badge cell at the configured URL; True if the notebook changed."""
    cell = nb.cells[0] if nb.cells else None
    meta = cell.get("metadata", {}).get("nbgrader", {}) if cell is not None else {}
    if cell is None or meta.get("grade_id") != COLAB_BADGE_ID:
        raise ValueError(f"the first cell is not the '{COLAB_BADGE_ID}' cell")
    updated = with_colab_link(cell.source, colab_url(assignment, notebook, root))
    changed = updated != cell.source
    cell.source = updated
    return changed


# --- self-contained release notebooks ------------------------------------------------------------------


def _code_cells(nb):
    return [(i, c) for i, c in enumerate(nb.cells) if c.get("cell_type") == "code"]


def _grade_id(cell):
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def setup_packages(code: str) -> list[str]:
    """Packages the setup cell checks with ``find_spec`` and installs when missing."""
    tree = ast.parse(code)
    names = []
    for node in ast.walk(tree):
        iterables = []
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            if "find_spec" in ast.dump(node):
                iterables = [gen.iter for gen in node.generators]
        elif isinstance(node, ast.For) and "find_spec" in ast.dump(node):
            iterables = [node.iter]
        for iterable in iterables:
            if isinstance(iterable, (ast.Tuple, ast.List, ast.Set)):
                names += [e.value for e in iterable.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return names


def _calls(tree) -> list[ast.Call]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


def _is_pip_install(call: ast.Call) -> bool:
    text = ast.dump(call)
    return "'pip'" in text and "'install'" in text


def check_setup_cell(code: str) -> list[str]:
    """The setup cell installs only what is missing (find_spec) and says whether a GPU is present."""
    problems = []
    try:
        tree = ast.parse(code)
    except SyntaxError as error:
        return [f"setup cell does not parse: {error.msg} (line {error.lineno})"]
    if not any("find_spec" in ast.dump(call.func) for call in _calls(tree)):
        problems.append("setup cell does not check packages with importlib.util.find_spec")
    if not setup_packages(code):
        problems.append("setup cell has no literal list of packages it checks with find_spec")
    installs = [call for call in _calls(tree) if _is_pip_install(call)]
    guarded = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            for inner in node.body:
                guarded |= {id(call) for call in _calls(inner) if _is_pip_install(call)}
    if not installs:
        problems.append("setup cell never runs pip install for missing packages")
    elif any(id(call) not in guarded for call in installs):
        problems.append("setup cell runs pip install unconditionally; install only when something is missing")
    if "is_available" not in code or "cuda" not in code:
        problems.append("setup cell does not check torch.cuda.is_available()")
    prints = [call for call in _calls(tree) if isinstance(call.func, ast.Name) and call.func.id == "print"]
    if not any("gpu" in ast.dump(call).lower() for call in prints):
        problems.append("setup cell does not print whether a GPU is present")
    return problems


def self_contained_problems(nb, assignment: str, notebook: str, root: Path = REPO) -> list[str]:
    """Why a release notebook would not run on its own in Colab (empty: it would)."""
    problems = []
    first = nb.cells[0] if nb.cells else None
    if first is None or first.get("cell_type") != "markdown" or _grade_id(first) != COLAB_BADGE_ID:
        problems.append(f"the first cell is not the markdown '{COLAB_BADGE_ID}' cell")
    else:
        expected = colab_url(assignment, notebook, root)
        links = colab_links(first.source)
        if links != [expected]:
            problems.append(
                f"the first cell's Colab link is {links or 'missing'}; expected [{expected!r}] "
                "from [tool.course] colab_url"
            )
    code = _code_cells(nb)
    if not code or _grade_id(code[0][1]) != SETUP_ID:
        problems.append(f"the first code cell is not the setup cell (grade_id '{SETUP_ID}')")
        installed = []
    else:
        problems += check_setup_cell(code[0][1].source)
        try:
            installed = setup_packages(code[0][1].source)
        except SyntaxError:
            installed = []
    allowed = set(sys.stdlib_module_names) | COLAB_PREINSTALLED | set(installed)
    local = repo_modules(root)
    for index, cell in code:
        try:
            modules = imported_modules(cell.source)
        except SyntaxError as error:
            problems.append(f"cell {index} ({_grade_id(cell)}): does not parse: {error.msg} (line {error.lineno})")
            continue
        for line, module in modules:
            if module in local:
                problems.append(
                    f"cell {index} ({_grade_id(cell)}): line {line} imports {module!r}, "
                    "which exists only in the course repository"
                )
            elif module not in allowed:
                problems.append(
                    f"cell {index} ({_grade_id(cell)}): line {line} imports {module!r}, which "
                    "Colab lacks and the setup cell does not install"
                )
    return problems


def repo_modules(root: Path = REPO) -> set[str]:
    """Top-level names importable from the repository checkout (packages and modules at its root)."""
    names = set(REPO_MODULES)
    for path in Path(root).iterdir():
        if path.name.startswith(".") or path.name in ("release", "solutions", "source", "dist", "build"):
            continue
        if path.is_dir() and (path / "__init__.py").exists():
            names.add(path.name)
        elif path.suffix == ".py":
            names.add(path.stem)
    return names


# --- LMS bundles ---------------------------------------------------------------------------------------


def student_readme(
    assignment: Assignment, notebooks: list[str], *, title: str | None = None, where: str = "this bundle"
) -> str:
    """The student's page for one assignment: where to open it, how to work, how to submit. ``where``: what
    holds the notebook beside this page (an LMS bundle, a folder of the published student repository)."""
    title = title or assignment.title
    root = assignment.course.root
    links = "\n".join(f"- [{name}]({colab_url(assignment.name, name, root)})" for name in notebooks)
    files = ", ".join(f"`{name}`" for name in notebooks)
    return f"""# {title}

## Open the notebook

In Google Colab (recommended; nothing to install):

{links}

Then **File > Save a copy in Drive**, so your work is saved in your own Drive. A GPU is optional: the
first code cell says whether the notebook found one (Runtime > Change runtime type > GPU to get one).

Working locally instead: open {files} from {where} in Jupyter; the first code cell installs
whatever your Python lacks.

## Work

- Fill in every cell that says `YOUR CODE HERE` or `YOUR ANSWER HERE`; leave the other cells as they
  are (they are restored from the original before grading, so edits to them are lost).
- Run the visible checks under each task. They help; hidden tests decide the score.
- Before submitting: **Runtime > Restart session and run all**, and check that it runs from top to
  bottom without errors.

## Submit

Colab names your copy `Copy of ...`: rename it back to {files} (File > Rename). Download it with
**File > Download > Download .ipynb** and upload that `.ipynb` file to this assignment's page in the
LMS (not a PDF, a zip or a Drive link).
"""


def _zip_entry(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def build_bundle(assignment: Assignment, dist_dir: Path | None = None) -> Path:
    """``dist_dir/lms/<assignment>.zip`` (by default the course's ``dist_dir``) from the assignment's release
    folder; returns the zip's path."""
    folder = assignment.release_folder
    files = sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and ".ipynb_checkpoints" not in p.parts and "__pycache__" not in p.parts
    )
    notebooks = [p.name for p in files if p.suffix == ".ipynb" and p.parent == folder]
    if not notebooks:
        raise FileNotFoundError(f"no release notebook in {folder}; run `course release {assignment.name}` first")
    target = Path(dist_dir if dist_dir is not None else assignment.course.dist_dir) / "lms" / f"{assignment.name}.zip"
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    with zipfile.ZipFile(partial, "w") as archive:
        _zip_entry(archive, "README.md", student_readme(assignment, notebooks).encode("utf-8"))
        for path in files:
            _zip_entry(archive, path.relative_to(folder).as_posix(), path.read_bytes())
    partial.replace(target)
    return target


def released(course) -> list[str]:
    """The course's assignments that have a release folder, in course order."""
    return [name for name in course.names() if (course.release_dir / name).is_dir()]


def build_bundles(course, assignments: list[str]) -> list[tuple[str, Path | str]]:
    """``course lms``: each named assignment's bundle rebuilt from the committed release/ (``build_bundle``);
    (name, the zip written or why none was), in the order named."""
    built: list[tuple[str, Path | str]] = []
    for name in assignments:
        try:
            built.append((name, build_bundle(course.assignment(name))))
        except FileNotFoundError as error:
            built.append((name, str(error)))
    return built
