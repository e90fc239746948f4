"""``course publish DIR``: the student side of the course, alone, in a folder that becomes a repository of
its own (the one ``[tool.course] colab_url`` opens).

The course repository holds the answer key (``solutions/``, ``source/``, ``autograder/``), so Colab links
must never open it. What students need is written to DIR instead:

    DIR/README.md                    the assignments, their Colab links, how to work and submit
    DIR/<assignment>/<assignment>.ipynb   each released notebook (from the committed release/<assignment>/)
    DIR/<assignment>/<data files>    anything else the release folder holds
    DIR/<assignment>/README.md       the assignment's student page (as in its LMS bundle)
    DIR/.published.json              what this command wrote, with checksums (so the next run replaces it)

Where a notebook goes is where its Colab link points: the path after ``blob/<branch>/`` in ``colab_url``
(``{assignment}/{notebook}`` by default), so every link opens the file it names.

``publish`` refuses, writing nothing, when: the Colab link may not go to students (the shipped placeholder,
a link into this course repository, and with ``check_remote`` a repository listing ``solutions/`` or
``autograder/``: ``colab_target``); a release notebook's link is not the configured one (``course release``
writes it); DIR is the course repository, inside it or around it; DIR holds a link, a key folder
(``solutions/``, ``source/``, ``autograder/``), or a file of ours' name it did not write; or the tree as it
would be after writing fails the release's leak scan (``leaks.leaks``: every file, those already in DIR
included, against every assignment's solutions, hidden tests and mark schemes). A DIR that is a git clone
keeps its ``.git``; files this command wrote before and no longer writes are removed.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from types import SimpleNamespace

from assignments import notebooks
from assignments.course import Course
from assignments.release import colab_target, lms
from assignments.release.leaks import leaks
from assignments.release.pipeline import colab_link_problems

MANIFEST = ".published.json"
KEY_FOLDERS = ("solutions", "source", "autograder")
KEPT = (".git",)  # a clone's own folder: never read, scanned or touched
SKIPPED_PARTS = (".ipynb_checkpoints", "__pycache__")


class PublishRefused(Exception):
    """Why nothing was published: one line per problem."""


@dataclass
class Published:
    out: Path
    written: list[str] = field(default_factory=list)  # relative paths, sorted
    removed: list[str] = field(default_factory=list)  # files an earlier publish wrote and this one does not


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _released(course: Course, assignments: list[str] | None) -> list[str]:
    """The course's assignments to publish (its catalog's and its source folders'): those named, else every
    one with a release folder."""
    if assignments:
        return list(assignments)
    return [name for name in course.names() if (course.release_dir / name).is_dir()]


def notebook_path(pattern: str, assignment: str, notebook: str) -> str:
    """Where the notebook goes in the published tree: the path its Colab link opens (``{assignment}/{notebook}``
    when the link is not Colab's GitHub form). Raises ValueError for a path that leaves the tree."""
    target = colab_target.github_target(pattern)
    path = (target.path if target else "{assignment}/{notebook}").format(assignment=assignment, notebook=notebook)
    parts = PurePosixPath(path).parts
    if not parts or path.startswith("/") or any(part in ("..", ".", "") for part in path.split("/")):
        raise ValueError(f"[tool.course] colab_url opens {path!r}, which is no place in a published folder")
    return path


def plan(course: Course, assignments: list[str]) -> tuple[dict[str, bytes], list[str]]:
    """(relative path -> bytes of every file to write, problems). Reads only the committed release/."""
    pattern = lms.colab_pattern(course.root)
    files: dict[str, bytes] = {}
    problems: list[str] = []
    listed = []

    def put(path: str, data: bytes, why: str) -> None:
        if path in files:
            problems.append(f"{path}: two files would be published there ({why}); change colab_url's path")
        files[path] = data

    for name in assignments:
        if name not in course.names():  # also keeps a name from reaching outside release/
            problems.append(f"{name}: not an assignment of this course ({', '.join(course.names())})")
            continue
        folder = course.release_dir / name
        notebook = folder / f"{name}.ipynb"
        if not notebook.is_file():
            problems.append(f"{name}: no release notebook {course.display(notebook)}; run `course release {name}`")
            continue
        expected = lms.colab_url(name, notebook.name, course.root)
        try:
            cells = notebooks.read(notebook).cells
        except (OSError, ValueError) as error:
            problems.append(f"{course.display(notebook)}: cannot be read as a notebook ({error})")
            continue
        links = lms.colab_links(cells[0].source) if cells else []
        if links != [expected]:
            problems.append(
                f"{course.display(notebook)}: its Colab link is {links or 'missing'}, colab_url says {expected}; "
                f"run `course release {name}` and commit it"
            )
            continue
        try:
            where = PurePosixPath(notebook_path(pattern, name, notebook.name))
        except ValueError as error:
            problems.append(str(error))
            continue
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder)
            if path.is_symlink():
                problems.append(f"{course.display(path)}: a link; the release folder holds plain files only")
            elif path.is_file() and not any(p in SKIPPED_PARTS or p.startswith(".") for p in relative.parts):
                target = where if path == notebook else where.parent / relative.as_posix()
                put(target.as_posix(), path.read_bytes(), f"release/{name}/{relative.as_posix()}")
        title = course.assignment(name).title
        page = lms.student_readme(course.assignment(name), [notebook.name], title=title, where="this folder")
        put((where.parent / "README.md").as_posix(), page.encode("utf-8"), f"{name}'s student page")
        listed.append((name, title, where.as_posix(), expected))
    if listed:
        put("README.md", top_readme(listed).encode("utf-8"), "the student README")
    return files, problems


def top_readme(listed: list[tuple[str, str, str, str]]) -> str:
    rows = "\n".join(f"| {title} | [Open in Colab]({url}) | [`{path}`]({path}) |" for _, title, path, url in listed)
    return f"""# Assignments

Each assignment is one Jupyter notebook. Open it in Google Colab (nothing to install), save a copy in your
own Drive, fill in the cells that say `YOUR CODE HERE` or `YOUR ANSWER HERE`, and upload the `.ipynb` file
to the assignment's page in the course's LMS. Each assignment's folder has a README with the details.

| Assignment | Colab | Notebook |
| --- | --- | --- |
{rows}

Working locally instead: clone this repository and open the notebook in Jupyter; its first code cell
installs whatever your Python lacks.
"""


def _out_problems(course: Course, out: Path) -> list[str]:
    out, root = out.resolve(), course.root.resolve()
    if out == root or root in out.parents or out in root.parents:
        return [
            f"{out} is the course repository, inside it or around it; publish to a folder of its own (it becomes "
            "the student repository, which must not hold the course's files)"
        ]
    if out.exists() and not out.is_dir():
        return [f"{out} is a file; give a folder"]
    return []


def _existing(out: Path) -> tuple[dict[str, str], list[Path], list[str]]:
    """(what an earlier publish wrote: path -> sha256, every other file in DIR, problems with DIR)."""
    if not out.is_dir():
        return {}, [], []
    problems, files = [], []
    earlier: dict[str, str] = {}
    manifest = out / MANIFEST
    if manifest.is_file() and not manifest.is_symlink():
        try:
            earlier = {str(k): str(v) for k, v in json.loads(manifest.read_text(encoding="utf-8"))["files"].items()}
        except (ValueError, KeyError, AttributeError, TypeError):
            problems.append(f"{manifest}: not what `course publish` writes; remove it or give another folder")
        outside = [rel for rel in earlier if not _inside(out, rel)]
        if outside:  # the files it names are removed on the next publish: never one outside DIR
            problems.append(f"{manifest}: names {ascii(outside[0])}, outside the folder; remove the file")
    stack = [out]
    while stack:
        folder = stack.pop()
        for path in sorted(folder.iterdir()):
            relative = path.relative_to(out)
            if relative.parts[0] in KEPT:
                continue
            if path.is_symlink():
                problems.append(f"{path}: a link; the student repository holds plain files only")
            elif path.is_dir():
                if path.name in KEY_FOLDERS:
                    problems.append(f"{path}: a {path.name}/ folder; the student repository must not hold one")
                stack.append(path)
            elif path.is_file() and relative.as_posix() != MANIFEST:
                files.append(path)
    return earlier, files, problems


def _inside(out: Path, rel: str) -> bool:
    """Whether the relative path ``rel`` names a place inside ``out`` (no absolute path, no ``..``, no link out)."""
    path = PurePosixPath(rel)
    if path.is_absolute() or not path.parts or any(part in ("..", "") for part in rel.split("/")):
        return False
    return out.resolve() in (out / rel).resolve().parents


def _course_source(course: Course):
    """Every assignment's source notebook as one: what the leak scan looks for anywhere in the tree."""
    cells = []
    for name in course.present():
        cells += notebooks.read(course.assignment(name).source_path).cells
    return SimpleNamespace(cells=cells)  # all that the leak scan reads of a notebook


def tree_leaks(course: Course, root: Path, assignments: list[str], display: str) -> list[str]:
    """The release's leak scan (``leaks.leaks``) over a published tree at ``root`` (messages name it
    ``display``): each assignment's folder against its own source, then every file against every
    assignment's. Also: no file inside a key folder."""
    problems = []
    pattern = lms.colab_pattern(course.root)
    files = [p for p in root.rglob("*") if p.is_file() and p.relative_to(root).parts[0] not in KEPT]
    for name in assignments:
        folder = root / PurePosixPath(notebook_path(pattern, name, f"{name}.ipynb")).parent
        mine = [path for path in files if folder in path.parents]
        problems += leaks(root, notebooks.read(course.assignment(name).source_path), display, mine)
    everyone = leaks(root, _course_source(course), display, files)
    problems += [problem for problem in everyone if problem not in problems]
    for path in files:
        parts = path.relative_to(root).parts
        if any(part in KEY_FOLDERS for part in parts[:-1]):
            problems.append(f"{display}/{path.relative_to(root).as_posix()}: inside a key folder")
    return problems


def publish(
    course: Course,
    out: Path,
    assignments: list[str] | None = None,
    *,
    check_remote: bool = False,
    placeholder_ok: bool = False,
) -> Published:
    """Write the student side to ``out`` (see the module docstring); raises ``PublishRefused`` with every
    problem, having written nothing. ``placeholder_ok``: for tests only (no student sees their tree)."""
    out = Path(out)
    problems = colab_link_problems(course, placeholder_ok=placeholder_ok, check_remote=check_remote)
    names = _released(course, assignments)
    if not names:
        problems.append(f"nothing to publish: no release folder in {course.display(course.release_dir)}")
    if problems:
        raise PublishRefused("\n".join(problems))
    files, problems = plan(course, names)
    problems += _out_problems(course, out)
    if problems:
        raise PublishRefused("\n".join(problems))
    earlier, present, problems = _existing(out)
    foreign = {p.relative_to(out).as_posix(): p for p in present if p.relative_to(out).as_posix() not in earlier}
    for rel in sorted(set(files) & set(foreign)):
        if foreign[rel].read_bytes() != files[rel]:
            problems.append(f"{out / rel}: a file `course publish` did not write; move it away or give another folder")
    if problems:
        raise PublishRefused("\n".join(problems))
    with tempfile.TemporaryDirectory(prefix="publish-") as scratch:
        stage = Path(scratch)
        for rel, data in files.items():
            (stage / rel).parent.mkdir(parents=True, exist_ok=True)
            (stage / rel).write_bytes(data)
        problems = tree_leaks(course, stage, names, str(out))
    # What DIR already holds and keeps (the instructor's LICENSE, a file copied in by hand) is scanned in place.
    kept = [path for rel, path in foreign.items() if rel not in files]
    if kept:
        problems += leaks(out, _course_source(course), str(out), kept)
    if problems:
        raise PublishRefused("\n".join(problems))
    return _write(out, files, earlier)


def _write(out: Path, files: dict[str, bytes], earlier: dict[str, str]) -> Published:
    out.mkdir(parents=True, exist_ok=True)
    result = Published(out)
    for rel in sorted(set(earlier) - set(files)):
        path = out / rel
        if path.is_file() and not path.is_symlink():
            path.unlink()
            result.removed.append(rel)
    for rel, data in sorted(files.items()):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        partial.write_bytes(data)
        partial.replace(path)
        result.written.append(rel)
    manifest = {"files": {rel: _sha256(data) for rel, data in sorted(files.items())}}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    _remove_empty_folders(out, earlier)
    return result


def _remove_empty_folders(out: Path, earlier: dict[str, str]) -> None:
    """Folders an earlier publish made and that nothing is left in."""
    folders = {out / PurePosixPath(rel).parent for rel in earlier} - {out}
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        if folder.is_dir() and not folder.is_symlink() and not any(folder.iterdir()):
            shutil.rmtree(folder)
