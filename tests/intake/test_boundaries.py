"""Intake's trust boundaries (issue 43, items 3 and 4): the instructor decides how a download is read, never a
file a student uploads; and one student's files are bounded on their own, so no student stops the class."""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path

import pytest

from assignments.intake import IntakeError, collect
from tests.intake.test_intake import GOOD, GRADESCOPE_METADATA, codes, gradescope_export, make_zip, notebook, write_tree

FINGERPRINTS = {"transformers": {"setup", "attention", "attention_tests", "mha_tests"}}


def run(source, tmp_path, **kw):
    return collect(source, "transformers", tmp_path / "out", fingerprints=FINGERPRINTS, **kw)


def kept(result) -> dict[str, bytes]:
    return {s.student: Path(s.path).read_bytes() for s in result.submissions}


# --- item 3: how a download is read ----------------------------------------------------------------------

# Mallory's upload to a plain folder: it lists Ada's file (a plain file's "folder" is its stem) as a group of
# Ada and Mallory, and leaves Bob out. Read as Gradescope's export, Mallory got Ada's notebook and full
# marks as a "group member", and Bob got no record at all.
FORGED = b"""\
ada:
  :submitters:
  - :name: Ada
    :sid: ada
  - :name: Mallory
    :sid: mallory
"""


def a_plain_folder_with_a_forged_metadata(root: Path) -> Path:
    return write_tree(
        root,
        {
            "ada.ipynb": notebook("attention", marker="ada"),
            "bob.ipynb": notebook("attention", marker="bob"),
            "mallory.ipynb": notebook("attention", marker="mallory"),
            "submission_metadata.yml": FORGED,
        },
    )


@pytest.mark.parametrize("layout", ["auto", "folder"])
def test_a_students_metadata_file_never_turns_a_plain_folder_into_a_gradescope_export(tmp_path, layout):
    result = run(a_plain_folder_with_a_forged_metadata(tmp_path / "uploads"), tmp_path, layout=layout)
    assert result.layout == "plain"
    notebooks = kept(result)
    assert sorted(notebooks) == ["ada", "bob", "mallory"], "a student lost their record or a classmate's was added"
    assert all(f"# {who}".encode() in data for who, data in notebooks.items()), "a notebook went to another student"
    assert "group-submission" not in codes(result)
    # The stray file is nobody's: one line, no phantom student named after it.
    stray = [f for f in result.findings if f.student is None]
    assert [(f.code, f.file) for f in stray] == [("unattributed", "submission_metadata.yml")]
    assert "--layout gradescope" in stray[0].message and "\n" not in stray[0].message


def test_a_metadata_file_in_a_students_folder_is_that_students_file(tmp_path):
    source = write_tree(
        tmp_path / "class",
        {
            "mallory/transformers.ipynb": notebook("attention", marker="mallory"),
            "mallory/submission_metadata.yml": FORGED.replace(b"ada:", b"mallory:"),
        },
    )
    result = run(source, tmp_path)
    assert result.layout == "folder" and sorted(kept(result)) == ["mallory"]
    assert codes(result, "mallory") == ["not-a-notebook"] and "group-submission" not in codes(result)


def test_the_gradescope_structure_is_still_read_as_gradescope_without_being_told(tmp_path):
    result = run(make_zip(tmp_path / "export.zip", gradescope_export()), tmp_path)
    assert result.layout == "gradescope" and result.students() == ["0042", "0043", "cy_uni.edu"]


def test_a_metadata_file_that_names_a_folder_twice_attributes_neither_record(tmp_path):
    # Mallory's record for Ada's folder written after Ada's own: YAML would keep the last one silently.
    twice = GRADESCOPE_METADATA + "submission_101:\n  :submitters:\n  - :name: Mallory\n    :sid: '0666'\n"
    result = run(make_zip(tmp_path / "export.zip", gradescope_export(metadata=twice)), tmp_path)
    assert "0666" not in result.students() and "0042" not in result.students()
    assert result.students() == ["0043", "cy_uni.edu"], "the honest submissions were not read"
    problems = [f.message for f in result.findings if f.code == "unattributed" and f.student is None]
    assert any("'submission_101' is listed 2 times" in m for m in problems)


def test_the_instructors_layout_decides(tmp_path):
    plain = write_tree(tmp_path / "plain", {"doejane_1002_5_transformers.ipynb": GOOD, "bob.ipynb": GOOD})
    # Read as a plain folder, a file named like a Canvas upload is its sender's name, never Canvas user 1002.
    folder = run(plain, tmp_path, layout="folder")
    assert folder.layout == "plain" and "1002" not in folder.students()
    # Read as Canvas, a name that is not Canvas's is refused (nobody's), the Canvas one is read.
    canvas = run(plain, tmp_path, layout="canvas")
    assert canvas.students() == ["1002"] and [f.code for f in canvas.findings if f.student is None] == ["unsafe-name"]
    with pytest.raises(IntakeError, match="no submission_metadata.yml"):
        run(plain, tmp_path, layout="gradescope")
    # The instructor may still say an export is Gradescope's when its structure is unusual.
    odd = gradescope_export(extra={"assignment_7_export/README.txt": b"notes"})
    assert run(make_zip(tmp_path / "odd.zip", odd), tmp_path).layout != "gradescope"
    assert run(make_zip(tmp_path / "odd.zip", odd), tmp_path, layout="gradescope").layout == "gradescope"


def test_course_intake_takes_the_layout(tmp_path, capsys):
    from assignments.cli import main as course

    source = a_plain_folder_with_a_forged_metadata(tmp_path / "uploads")
    out = ["--dest", str(tmp_path / "out"), "--manifest", str(tmp_path / "m.json")]
    assert course(["intake", "transformers", str(source), "--layout", "folder", *out]) == 0
    assert "(read as plain)" in capsys.readouterr().out
    # Told it is Gradescope's, a folder without the export's metadata is refused, not guessed at.
    (source / "submission_metadata.yml").unlink()
    assert course(["intake", "transformers", str(source), "--layout", "gradescope", *out]) == 1
    assert "no submission_metadata.yml" in capsys.readouterr().out
    # course grade takes it too, and stops before grading anything or writing a run.
    run_folder = tmp_path / "run"
    assert course(["grade", "transformers", str(source), "--layout", "gradescope", "--out", str(run_folder)]) == 1
    assert "intake failed: read as a Gradescope export" in capsys.readouterr().err and not run_folder.exists()


# --- item 4: limits per student ---------------------------------------------------------------------------


def honest(entries: dict) -> dict:
    return {
        **entries,
        "lovelaceada_1001_1_transformers.ipynb": notebook("attention", marker="ada"),
        "babbagebob_1002_2_transformers.ipynb": notebook("attention", marker="bob"),
    }


def assert_the_class_goes_on(result, intruder: str):
    notebooks = kept(result)
    assert b"# ada" in notebooks["1001"] and b"# bob" in notebooks["1002"], "an honest student lost their notebook"
    assert codes(result, "1001") == codes(result, "1002") == []
    assert any(f.code == "over-limit" or f.code == "unreadable-entry" for f in result.findings if f.student == intruder)
    assert all(f.student == intruder for f in result.findings), "a finding of the intruder's landed elsewhere"


def test_one_students_five_thousand_entries_are_that_students_finding(tmp_path):
    entries = honest({f"mallory_1003_{9000 + i}_junk{i}.ipynb": b"{}" for i in range(5000)})
    result = run(make_zip(tmp_path / "class.zip", entries), tmp_path)
    assert_the_class_goes_on(result, "1003")
    over = [f for f in result.findings if f.code == "over-limit"]
    assert len(over) == 1 and "sent 5000 files" in over[0].message and "\n" not in over[0].message
    assert [m.student for m in result.missing] == ["1003"] and not (tmp_path / "out" / "1003").exists()


def raw_zip(path: Path, entries: list[tuple[str, bytes, int, int]]) -> Path:
    """A zip of (name, deflated bytes, declared size, crc) written as they are: an entry compressed once is
    stored many times, and a declared size can lie as a zip bomb's does."""
    body, directory = b"", b""
    for name, data, size, crc in entries:
        raw = name.encode()
        offset = len(body)
        body += struct.pack("<4s5H3L2H", b"PK\3\4", 20, 0, 8, 0, 0x21, crc, len(data), size, len(raw), 0) + raw + data
        directory += (
            struct.pack(
                "<4s6H3L5H2L", b"PK\1\2", 20, 20, 0, 8, 0, 0x21, crc, len(data), size, len(raw), 0, 0, 0, 0, 0, offset
            )
            + raw
        )
    end = struct.pack("<4s4H2LH", b"PK\5\6", 0, 0, len(entries), len(entries), len(directory), len(body), 0)
    path.write_bytes(body + directory + end)
    return path


def deflated(data: bytes) -> bytes:
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -15)
    return squeeze.compress(data) + squeeze.flush()


def with_honest(path: Path, entries: list) -> Path:
    for name, marker in (
        ("lovelaceada_1001_1_transformers.ipynb", "ada"),
        ("babbagebob_1002_2_transformers.ipynb", "bob"),
    ):
        data = notebook("attention", marker=marker)
        entries.append((name, deflated(data), len(data), zlib.crc32(data)))
    return raw_zip(path, entries)


def test_one_students_padded_notebooks_are_that_students_finding(tmp_path):
    # 1.2 GB of padded notebooks in a download under 2 MB: 20 of 60 MiB, each of zeros after a notebook's start.
    padded = notebook("attention", marker="mallory")[:-1] + b" " * (60 * 2**20) + b"}"
    squeezed, crc = deflated(padded), zlib.crc32(padded)
    entries = [(f"mallory_1003_{900 + i}_transformers.ipynb", squeezed, len(padded), crc) for i in range(20)]
    source = with_honest(tmp_path / "class.zip", entries)
    assert source.stat().st_size < 2 * 2**20
    result = run(source, tmp_path)
    assert_the_class_goes_on(result, "1003")
    assert [m.student for m in result.missing] == ["1003"]


def test_a_zip_bomb_from_one_student_among_honest_students(tmp_path):
    # The declared size lies (1 KiB) and the entry inflates to 80 MiB: the read stops at the entry's cap.
    bomb = b"\0" * (80 * 2**20)
    source = with_honest(tmp_path / "class.zip", [("mallory_1003_900_transformers.ipynb", deflated(bomb), 1024, 0)])
    result = run(source, tmp_path)
    assert_the_class_goes_on(result, "1003")
    assert codes(result, "1003") == ["missing-notebook", "unreadable-entry"]


def test_the_bytes_one_student_may_send_are_bounded(tmp_path):
    mallory = {
        f"mallory_1003_{900 + i}_transformers.ipynb": notebook("attention", marker=f"m{i}" + "x" * 300_000)
        for i in range(5)
    }
    result = run(make_zip(tmp_path / "class.zip", honest(mallory)), tmp_path, max_student_bytes=2**20)
    assert_the_class_goes_on(result, "1003")
    over = [f for f in result.findings if f.code == "over-limit"]
    assert len(over) == 2 and all("1 MiB one student may send" in f.message for f in over)
    assert "1003" in kept(result), "what fit in the allowance is still graded"


def test_depth_and_name_length_are_bounded_per_student(tmp_path):
    entries = {
        "ada/transformers.ipynb": notebook("attention", marker="ada"),
        "mallory/transformers.ipynb": notebook("attention", marker="mallory"),
        "mallory/" + "d/" * 40 + "deep.ipynb": GOOD,
        "mallory/" + "n" * 300 + ".ipynb": GOOD,
    }
    result = run(make_zip(tmp_path / "class.zip", entries), tmp_path)
    assert sorted(kept(result)) == ["ada", "mallory"] and b"# mallory" in kept(result)["mallory"]
    over = [f for f in result.findings if f.code == "over-limit"]
    assert [(f.student, f.message.split(",")[0]) for f in over] == [("mallory", "2 file(s) not read")]
    assert codes(result, "ada") == []


def test_the_whole_archive_backstop_is_a_class_at_full_allowance():
    from assignments.intake import archives

    assert archives.MAX_ENTRIES >= 2000 * archives.MAX_STUDENT_ENTRIES
    assert archives.MAX_TOTAL_BYTES >= 2000 * archives.MAX_STUDENT_BYTES
    assert zipfile.ZIP_DEFLATED == 8  # the method raw_zip writes
