"""The student side published alone (#45 item 1): ``course publish DIR`` writes the release notebooks, their
data and a student README to a folder of its own, where the Colab links point; the tree passes the release's
leak scan; and a colab_url that would open the course repository (this checkout's remote, a listing with
solutions/ or autograder/) or the shipped placeholder is refused."""

from __future__ import annotations

import http.server
import json
import shutil
import subprocess
import threading
from pathlib import Path, PurePosixPath

import pytest

from assignments import cli, notebooks, release
from assignments.course import REPO, Course, default
from assignments.release import colab_target, lms
from assignments.release.publish import MANIFEST, PublishRefused, notebook_path, publish, tree_leaks

STUDENT_URL = "https://colab.research.google.com/github/my-uni/nlp-students/blob/main/{assignment}/{notebook}"
SHIPPED = lms.colab_pattern(REPO)


def course_with(tmp_path: Path, url: str = STUDENT_URL) -> Course:
    """A course folder whose colab_url is ``url``, with the real sources and the committed release notebooks,
    their links pointing there (as `course release` would have written them)."""
    root = tmp_path / "course"
    root.mkdir()
    settings = (REPO / "pyproject.toml").read_text(encoding="utf-8").replace(SHIPPED, url)
    (root / "pyproject.toml").write_text(settings, encoding="utf-8")
    for name in default().order:
        folder = root / "release" / name
        folder.mkdir(parents=True)
        text = (default().release_dir / name / f"{name}.ipynb").read_text(encoding="utf-8")
        shipped = SHIPPED.format(assignment=name, notebook=f"{name}.ipynb")
        (folder / f"{name}.ipynb").write_text(
            text.replace(shipped, url.format(assignment=name, notebook=f"{name}.ipynb"))
        )
    return Course(root, source_dir=default().source_dir)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


# --- the published tree --------------------------------------------------------------------------------


def test_the_published_tree_passes_the_release_leak_scan_and_its_links_open_its_files(tmp_path):
    course = course_with(tmp_path)
    out = tmp_path / "students"
    done = publish(course, out)
    names = default().order
    expected = {"README.md", *(f"{n}/{n}.ipynb" for n in names), *(f"{n}/README.md" for n in names)}
    assert set(done.written) == expected
    # The scan the release runs on release/<a>, on each published folder, against its own source.
    for name in names:
        source = notebooks.read(default().assignment(name).source_path)
        assert release.leaks(out / name, source, f"published/{name}") == []
        nb = notebooks.read(out / name / f"{name}.ipynb")
        [link] = lms.colab_links(nb.cells[0].source)
        assert link == lms.colab_url(name, f"{name}.ipynb", course.root)
        assert colab_target.github_target(link).path == f"{name}/{name}.ipynb", "the link opens this very file"
        assert lms.self_contained_problems(nb, name, f"{name}.ipynb", course.root) == []
        assert link in (out / name / "README.md").read_text() and link in (out / "README.md").read_text()
    assert tree_leaks(course, out, names, "published") == []
    for path in out.rglob("*"):
        assert not set(path.relative_to(out).parts) & {"solutions", "source", "autograder"}
    assert json.loads((out / MANIFEST).read_text())["files"].keys() == expected


def test_publishing_again_replaces_its_own_files_and_keeps_a_clones_git_and_the_instructors_files(tmp_path):
    course = course_with(tmp_path)
    out = tmp_path / "students"
    (out / ".git").mkdir(parents=True)
    (out / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (out / "LICENSE").write_text("CC BY 4.0\n")
    publish(course, out)
    first = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    again = publish(course, out, ["transformers"])
    assert again.removed and all(not r.startswith("transformers/") for r in again.removed)
    assert not (out / "rnn_attention").exists() and (out / "transformers" / "transformers.ipynb").is_file()
    assert (out / ".git" / "HEAD").read_bytes() == first[out / ".git" / "HEAD"]
    assert (out / "LICENSE").read_text() == "CC BY 4.0\n"


def test_a_notebook_goes_where_its_colab_link_points(tmp_path):
    assert notebook_path(STUDENT_URL, "a1", "a1.ipynb") == "a1/a1.ipynb"
    flat = STUDENT_URL.replace("{assignment}/{notebook}", "notebooks/{notebook}")
    assert notebook_path(flat, "a1", "a1.ipynb") == "notebooks/a1.ipynb"
    with pytest.raises(ValueError):
        notebook_path(STUDENT_URL.replace("{assignment}/{notebook}", "../{notebook}"), "a1", "a1.ipynb")


# --- refusals: nothing written -------------------------------------------------------------------------


def test_the_shipped_placeholder_is_refused_and_nothing_is_written(tmp_path, capsys):
    out = tmp_path / "students"
    status = cli.main(["publish", str(out)])
    said = capsys.readouterr().err
    assert status == 2 and said.startswith("course publish: nothing published: ") and "still a placeholder" in said
    assert not out.exists()
    assert lms.colab_problems(REPO, placeholder_ok=True) == [], "the demo's release accepts it"


@pytest.mark.parametrize(
    "remote",
    [
        "https://github.com/My-Uni/NLP-Course.git",
        "git@github.com:my-uni/nlp-course.git",
        "ssh://git@github.com/my-uni/nlp-course",
        "https://someone@github.com/my-uni/nlp-course/",
    ],
)
def test_a_colab_url_into_this_checkouts_own_remote_is_refused(tmp_path, remote):
    course = course_with(tmp_path, STUDENT_URL.replace("nlp-students", "nlp-course"))
    git(course.root, "init", "-q")
    git(course.root, "remote", "add", "origin", remote)
    problems = release.colab_link_problems(course, placeholder_ok=True)
    assert len(problems) == 1 and "which is this course repository" in problems[0], problems
    with pytest.raises(PublishRefused, match="this course repository"):
        publish(course, tmp_path / "students")
    assert not (tmp_path / "students").exists()
    # The release refuses it before anything runs, even the demo's (it is never a placeholder).
    outcome = release.release(["transformers"], course, demo=True, log=lambda *_: None)
    assert "which is this course repository" in outcome.problems[0]
    git(course.root, "remote", "set-url", "origin", "https://github.com/my-uni/nlp-students-staff.git")
    assert release.colab_link_problems(course) == [], "another repository is not this one"


class _Listing(http.server.BaseHTTPRequestHandler):
    """GitHub's contents API as far as the check reads it: a JSON list of {name, type} for a repository's top."""

    tops = {
        "my-uni/nlp-students": ["README.md", "transformers"],
        "my-uni/nlp-course": ["source", "solutions", "README.md"],
    }

    def do_GET(self):  # noqa: N802 (http.server's name)
        parts = self.path.split("?")[0].strip("/").split("/")
        names = self.tops.get("/".join(parts[1:3])) if parts[:1] == ["repos"] else None
        body = json.dumps([{"name": n, "type": "dir"} for n in names]).encode() if names else b'{"message":"Not Found"}'
        self.send_response(200 if names else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_repository_whose_listing_shows_solutions_is_refused(tmp_path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Listing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    api = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert colab_target.check_remote(STUDENT_URL, api) == []
        course_repo = colab_target.check_remote(STUDENT_URL.replace("nlp-students", "nlp-course"), api)
        assert len(course_repo) == 1 and "holds solutions/" in course_repo[0]
        missing = colab_target.check_remote(STUDENT_URL.replace("nlp-students", "private"), api)
        assert "could not be listed" in missing[0]
    finally:
        server.shutdown()
    target = colab_target.github_target(STUDENT_URL)
    assert colab_target.listing_problems(target, ["autograder", "x"]) and not colab_target.listing_problems(target, [])


def test_a_stale_release_a_folder_inside_the_course_and_a_planted_leak_are_refused(tmp_path):
    course = course_with(tmp_path)
    with pytest.raises(PublishRefused, match="inside it or around it"):
        publish(course, course.root / "students")
    with pytest.raises(PublishRefused, match="inside it or around it"):
        publish(course, tmp_path)
    assert not (course.root / "students").exists()

    out = tmp_path / "students"
    out.mkdir()
    shutil.copy(default().solutions_dir / "transfer_lm" / "transfer_lm.ipynb", out / "copied_by_hand.ipynb")
    with pytest.raises(PublishRefused, match="reference solution line"):
        publish(course, out)
    assert sorted(p.name for p in out.iterdir()) == ["copied_by_hand.ipynb"], "nothing was written"
    (out / "copied_by_hand.ipynb").unlink()
    (out / "autograder").mkdir()
    with pytest.raises(PublishRefused, match="autograder/ folder"):
        publish(course, out)
    (out / "autograder").rmdir()
    (out / "README.md").write_text("the instructor's own\n")
    with pytest.raises(PublishRefused, match="did not write"):
        publish(course, out)
    (out / "README.md").unlink()
    (course.root / "keep.txt").write_text("the course's own file\n")
    (out / MANIFEST).write_text(json.dumps({"files": {"../course/keep.txt": "0" * 64}}))
    with pytest.raises(PublishRefused, match="outside the folder"):
        publish(course, out)
    assert (course.root / "keep.txt").exists()
    (out / MANIFEST).unlink()

    stale = course.root / "release" / "transformers" / "transformers.ipynb"
    stale.write_text(stale.read_text().replace("my-uni/nlp-students", "my-uni/old-students"))
    with pytest.raises(PublishRefused, match="run `course release transformers`"):
        publish(course, out)
    assert list(out.iterdir()) == []


def test_an_assignment_name_never_reaches_outside_release(tmp_path):
    course = course_with(tmp_path)
    with pytest.raises(PublishRefused, match="not an assignment of this course"):
        publish(course, tmp_path / "students", ["../../solutions/transformers"])
    assert not (tmp_path / "students").exists()


def test_the_published_paths_never_leave_the_folder():
    for name in default().order:
        path = PurePosixPath(notebook_path(STUDENT_URL, name, f"{name}.ipynb"))
        assert not path.is_absolute() and ".." not in path.parts
