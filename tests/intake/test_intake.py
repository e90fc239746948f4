"""LMS intake: Canvas and Moodle names, late files, duplicates, wrong files, hostile zips."""

from __future__ import annotations

import json
import os
import stat
import zipfile
from pathlib import Path

import pytest

from assignments import intake
from assignments.intake import IntakeError, IntakeResult, collect, parse_name
from assignments.intake import gradescope_metadata as submission_metadata

FINGERPRINTS = {
    "transformers": {"setup", "attention", "attention_tests", "mha_tests"},
    "rnn_attention": {"setup", "gru", "gru_tests", "bahdanau_tests", "decoder_tests"},
}


def notebook(*grade_ids: str, marker: str = "") -> bytes:
    cells = [
        {
            "cell_type": "code",
            "source": f"x = 1  # {marker}",
            "outputs": [],
            "execution_count": None,
            "metadata": {"nbgrader": {"grade_id": g, "schema_version": 3}},
        }
        for g in grade_ids
    ]
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}).encode()


GOOD = notebook("attention", "attention_tests")


def make_zip(path: Path, entries: dict, compression=zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in entries.items():
            if isinstance(data, zipfile.ZipInfo):
                archive.writestr(data, b"target")
            elif isinstance(data, tuple):  # (bytes, date_time)
                info = zipfile.ZipInfo(name, data[1])
                archive.writestr(info, data[0])
            else:
                archive.writestr(name, data)
    return path


def codes(result: IntakeResult, student=None) -> list[str]:
    return sorted(f.code for f in result.findings if student is None or f.student == student)


def run(source, tmp_path, **kw) -> IntakeResult:
    return collect(source, "transformers", tmp_path / "out", fingerprints=FINGERPRINTS, **kw)


def test_parse_canvas_moodle_and_plain_names():
    canvas = parse_name("doejane_12345_67890_transformers.ipynb")
    assert (
        canvas["lms"],
        canvas["student"],
        canvas["name"],
        canvas["submission_id"],
        canvas["late"],
        canvas["original_name"],
    ) == ("canvas", "12345", "doejane", 67890, False, "transformers.ipynb")
    late = parse_name("doejane_LATE_12345_67891_my_transformers-1.ipynb")
    assert late["late"] and late["student"] == "12345" and late["original_name"] == "my_transformers-1.ipynb"
    moodle = parse_name("Jane Doe_4321_assignsubmission_file_transformers.ipynb")
    assert (moodle["lms"], moodle["student"], moodle["name"], moodle["original_name"]) == (
        "moodle",
        "4321",
        "Jane Doe",
        "transformers.ipynb",
    )
    folder = parse_name("John Roe_777_assignsubmission_file_/transformers.ipynb")
    assert (folder["lms"], folder["student"], folder["original_name"]) == ("moodle", "777", "transformers.ipynb")
    plain = parse_name("j.doe@uni.ipynb")
    assert (plain["lms"], plain["student"]) == ("plain", "j.doe_uni")
    in_a_folder = parse_name("jdoe/j.doe@uni.ipynb")  # one folder per student: the folder says who
    assert (in_a_folder["lms"], in_a_folder["student"], in_a_folder["original_name"]) == (
        "folder",
        "jdoe",
        "j.doe@uni.ipynb",
    )


def test_canvas_zip_gives_one_submission_per_student(tmp_path):
    source = make_zip(
        tmp_path / "canvas.zip",
        {
            "doejane_111_900_transformers.ipynb": notebook("attention", marker="old"),
            "doejane_111_950_transformers-1.ipynb": notebook("attention", marker="new"),
            "smithjohn_LATE_222_901_transformers.ipynb": GOOD,
            "__MACOSX/._smithjohn_LATE_222_901_transformers.ipynb": b"\0\1",
        },
    )
    result = run(source, tmp_path)
    assert result.students() == ["111", "222"]
    jane = result.submissions[0]
    assert jane.submission_id == 950 and jane.original_name == "transformers-1.ipynb" and jane.name == "doejane"
    assert b"new" in Path(jane.path).read_bytes()
    assert Path(jane.path).parent == tmp_path / "out" / "111"
    assert codes(result, "111") == ["duplicate"]
    duplicate = next(f for f in result.findings if f.code == "duplicate")
    assert "transformers.ipynb" in duplicate.message and "kept transformers-1.ipynb" in duplicate.message
    john = result.submissions[1]
    assert john.late and codes(result, "222") == ["late"]
    assert not result.missing


def test_moodle_names_folders_and_plain_files(tmp_path):
    folder = tmp_path / "download"
    (folder / "John Roe_777_assignsubmission_file_").mkdir(parents=True)
    (folder / "John Roe_777_assignsubmission_file_" / "transformers.ipynb").write_bytes(GOOD)
    (folder / "Jane Doe_4321_assignsubmission_file_transformers.ipynb").write_bytes(GOOD)
    (folder / "plainstudent.ipynb").write_bytes(GOOD)
    (folder / ".ipynb_checkpoints").mkdir()
    (folder / ".ipynb_checkpoints" / "plainstudent-checkpoint.ipynb").write_bytes(GOOD)
    result = run(folder, tmp_path)
    assert result.students() == ["4321", "777", "plainstudent"]
    assert {s.student: s.lms for s in result.submissions} == {
        "4321": "moodle",
        "777": "moodle",
        "plainstudent": "plain",
    }
    assert result.roster()["4321"]["name"] == "Jane Doe"
    assert result.findings == []


def test_single_notebook_input(tmp_path):
    path = tmp_path / "alice.ipynb"
    path.write_bytes(GOOD)
    result = run(path, tmp_path)
    assert result.students() == ["alice"] and Path(result.submissions[0].path).read_bytes() == GOOD


def test_newest_file_wins_without_submission_ids(tmp_path):
    source = make_zip(
        tmp_path / "moodle.zip",
        {
            "Jane Doe_4321_assignsubmission_file_draft.ipynb": (
                notebook("attention", marker="old"),
                (2024, 1, 1, 10, 0, 0),
            ),
            "Jane Doe_4321_assignsubmission_file_final.ipynb": (
                notebook("attention", marker="new"),
                (2024, 1, 2, 10, 0, 0),
            ),
        },
    )
    result = run(source, tmp_path)
    assert result.submissions[0].original_name == "final.ipynb"
    assert codes(result) == ["duplicate"]


def test_wrong_and_missing_notebooks_are_reported(tmp_path):
    source = make_zip(
        tmp_path / "canvas.zip",
        {
            "doejane_111_900_transformers.ipynb": GOOD,
            "doejane_111_901_notes.pdf": b"%PDF-1.4",
            "roejim_333_903_notes.txt": b"I forgot",
            "kimlee_444_905_rnn_attention.ipynb": notebook("gru", "gru_tests"),
            "parkmin_555_907_transformers.ipynb": GOOD,
            "parkmin_555_999_rnn_attention.ipynb": notebook("gru", "gru_tests"),
            "ngoanh_666_908_homework.ipynb": notebook("setup", "gru", "gru_tests", "bahdanau_tests"),
        },
    )
    result = run(source, tmp_path)
    assert codes(result, "111") == ["not-a-notebook"]
    assert [m.student for m in result.missing] == ["333"]
    assert codes(result, "333") == ["missing-notebook", "not-a-notebook"]
    assert codes(result, "444") == ["wrong-assignment"]  # recognised by its name, graded as sent
    assert "rnn_attention" in next(f.message for f in result.findings if f.student == "444")
    park = next(s for s in result.submissions if s.student == "555")
    assert park.original_name == "transformers.ipynb"  # the right notebook beats a newer wrong one
    assert codes(result, "555") == ["duplicate"]
    assert codes(result, "666") == ["wrong-assignment"]  # recognised by its grade_ids
    assert "333" not in result.students()


def test_path_traversal_is_never_extracted(tmp_path):
    link = zipfile.ZipInfo("linkstudent_9_9_transformers.ipynb")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    source = make_zip(
        tmp_path / "evil.zip",
        {
            "../evil_1_2_transformers.ipynb": GOOD,
            "/abs_3_4_transformers.ipynb": GOOD,
            "sub/../../deep_5_6_transformers.ipynb": GOOD,
            "C:/win_7_8_transformers.ipynb": GOOD,
            "linkstudent_9_9_transformers.ipynb": link,
            "doejane_111_900_transformers.ipynb": GOOD,
        },
    )
    before = set(tmp_path.iterdir())
    result = run(source, tmp_path)
    assert result.students() == ["111"]
    assert codes(result) == ["unsafe-path"] * 5
    assert set(tmp_path.iterdir()) - before == {tmp_path / "out"}
    written = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert written == [tmp_path / "out" / "111" / "transformers.ipynb"]


def test_zip_bomb_entry_is_refused_without_inflating(tmp_path):
    bomb = b"\0" * (20 * 2**20)  # 20 MiB of zeros deflates to about 20 KiB
    source = make_zip(
        tmp_path / "bomb.zip",
        {"doejane_111_900_transformers.ipynb": bomb, "smithjohn_222_901_transformers.ipynb": GOOD},
    )
    result = run(source, tmp_path)
    assert result.students() == ["222"] and [m.student for m in result.missing] == ["111"]
    assert codes(result, "111") == ["missing-notebook", "unreadable-entry"]
    assert "zip bomb" in next(f.message for f in result.findings if f.code == "unreadable-entry")
    assert not (tmp_path / "out" / "111").exists()


def test_archive_caps_on_total_size_and_entry_count(tmp_path):
    entries = {f"s{i}_{i}_{i}_transformers.ipynb": os.urandom(300_000) for i in range(4)}
    source = make_zip(tmp_path / "big.zip", entries, zipfile.ZIP_STORED)
    with pytest.raises(IntakeError, match="zip bomb"):
        run(source, tmp_path, max_total_bytes=2**20)
    with pytest.raises(IntakeError, match="entries"):
        run(source, tmp_path, max_entries=3)
    with pytest.raises(IntakeError, match="not a readable zip"):
        bad = tmp_path / "bad.zip"
        bad.write_bytes(b"PK\3\4 this is not really a zip")
        run(bad, tmp_path)


def test_corrupt_entry_is_reported_and_the_rest_is_kept(tmp_path):
    payload = notebook("attention", marker="UNIQUE-PAYLOAD-MARKER")
    source = make_zip(
        tmp_path / "crc.zip",
        {"doejane_111_900_transformers.ipynb": payload, "smithjohn_222_901_transformers.ipynb": GOOD},
        zipfile.ZIP_STORED,
    )
    raw = bytearray(source.read_bytes())
    at = raw.index(b"UNIQUE-PAYLOAD-MARKER")
    raw[at] ^= 0xFF  # the stored bytes no longer match the CRC
    source.write_bytes(bytes(raw))
    result = run(source, tmp_path)
    assert result.students() == ["222"]
    assert codes(result, "111") == ["missing-notebook", "unreadable-entry"]


def test_manifest_round_trip(tmp_path):
    source = make_zip(
        tmp_path / "canvas.zip", {"doejane_LATE_111_900_transformers.ipynb": GOOD, "roejim_333_903_notes.txt": b"x"}
    )
    result = run(source, tmp_path)
    path = result.save(tmp_path / "grades" / "intake.json")
    again = IntakeResult.load(path)
    assert again == result
    assert again.roster() == {
        "111": {"name": "doejane", "user_id": "111", "lms": "canvas", "late": True},
        "333": {"name": "roejim", "user_id": "333", "lms": "canvas", "late": False},
    }
    assert "1 submission(s)" in again.summary() and "1 late" in again.summary()


def test_a_regrade_of_one_student_joins_the_runs_roster(tmp_path):
    """Regrading one student must not turn everyone else's name into an id (issue 24)."""
    class_zip = make_zip(
        tmp_path / "canvas.zip",
        {
            "doejane_LATE_111_900_transformers.ipynb": GOOD,
            "roejim_222_901_transformers.ipynb": GOOD,
            "poesam_333_903_notes.txt": b"x",
        },
    )
    first = run(class_zip, tmp_path / "first")
    again = run(make_zip(tmp_path / "one.zip", {"roejim_222_905_transformers.ipynb": GOOD}), tmp_path / "again")
    merged = again.merged_into(first)
    assert merged.roster() == {**first.roster(), "222": again.roster()["222"]}
    assert [s.submission_id for s in merged.submissions] == [900, 905]
    assert codes(merged, "111") == codes(first, "111") == ["late"]
    assert [s.student for s in merged.missing] == ["333"]


def test_default_fingerprints_read_the_source_folder(tmp_path):
    (tmp_path / "transformers").mkdir()
    (tmp_path / "transformers" / "transformers.ipynb").write_bytes(GOOD)
    assert intake.assignment_fingerprints(tmp_path) == {"transformers": {"attention", "attention_tests"}}


def test_canvas_text_entry_counts_as_that_student(tmp_path):
    source = make_zip(tmp_path / "canvas.zip", {"doejane_111_text.html": b"<p>see attached</p>"})
    result = run(source, tmp_path)
    assert [m.student for m in result.missing] == ["111"] and result.missing[0].name == "doejane"
    assert codes(result, "111") == ["missing-notebook", "not-a-notebook"]


# --- hostile entries: identity and malformed notebooks (issue 15, deliverable 8) ---------------------


def test_a_file_named_after_a_classmate_stays_in_its_senders_moodle_folder(tmp_path):
    victim = notebook("attention", "attention_tests", marker="victim")
    forged = notebook("attention", "attention_tests", marker="forged")
    source = make_zip(
        tmp_path / "moodle.zip",
        {
            "Bob Victim_222_assignsubmission_file_/transformers.ipynb": victim,
            # Alice uploads files named like Bob's folder and like a Canvas entry for Bob.
            "Alice Mallory_111_assignsubmission_file_/Bob Victim_222_assignsubmission_file_transformers.ipynb": forged,
            "Alice Mallory_111_assignsubmission_file_/bobvictim_222_999_transformers.ipynb": forged,
            "Alice Mallory_111_assignsubmission_file_/Bob Victim_222_assignsubmission_file_/transformers.ipynb": forged,
        },
    )
    result = run(source, tmp_path)
    by_student = {s.student: Path(s.path).read_bytes() for s in result.submissions}
    assert by_student["222"] == victim, "a classmate's file replaced Bob's notebook"
    assert by_student["111"] == forged
    assert {f.student for f in result.findings} <= {"111"}, "Alice's duplicates were blamed on Bob"


def test_parse_name_takes_identity_from_the_outermost_moodle_folder():
    who = parse_name("Ann Lee_5_assignsubmission_file_/Zed_9_assignsubmission_file_/z_9_10_x.ipynb")
    assert (who["lms"], who["student"], who["name"]) == ("moodle", "5", "Ann Lee")


def deep_json(depth: int) -> bytes:
    return b'{"cells": ' + b"[" * depth + b"]" * depth + b"}"


MALFORMED = {
    "deeply nested JSON": deep_json(200_000),
    "cells is a number": b'{"cells": 5, "nbformat": 4}',
    "cell metadata is a list": json.dumps(
        {"nbformat": 4, "cells": [{"cell_type": "code", "source": "", "metadata": ["nbgrader"], "outputs": []}]}
    ).encode(),
    "a cell is a string": b'{"nbformat": 4, "cells": ["x = 1"]}',
    # Latin-1 or Windows-1252 text is read (tests/grading/submission/test_recovery.py); NUL bytes are binary,
    # never text.
    "binary bytes": b'{"cells": [], "x": "\x00\xff\xfe\x80"}',
    "a JSON list": b"[1, 2, 3]",
}


@pytest.mark.parametrize("damage", sorted(MALFORMED))
def test_a_malformed_notebook_is_its_senders_finding_and_the_class_goes_on(tmp_path, damage):
    source = make_zip(
        tmp_path / "canvas.zip",
        {"doejane_111_900_transformers.ipynb": MALFORMED[damage], "smithjohn_222_901_transformers.ipynb": GOOD},
    )
    result = collect(source, "transformers", tmp_path / "out", fingerprints=FINGERPRINTS)
    assert result.students() == ["111", "222"], "both students keep their slot"
    assert codes(result, "111") == ["malformed-notebook"], f"{damage}: no finding for the damaged entry"
    assert codes(result, "222") == []
    assert Path(next(s.path for s in result.submissions if s.student == "222")).read_bytes() == GOOD


# --- every layout intake is fed (issue 31): Gradescope's export, one folder per student, wrappers ------------

# As Gradescope writes it (assignments/intake/gradescope_metadata.py says where this layout was checked): Ruby-symbol keys, ids
# quoted, a group with two submitters, one student without a student id, one submission with no files.
GRADESCOPE_METADATA = """\
---
submission_101:
  :submitters:
  - :name: Ada Lovelace
    :sid: '0042'
    :email: ada@uni.edu
  :created_at: 2026-11-01 10:00:00.000000000 Z
  :score: 0.0
  :history: []
submission_102:
  :submitters:
  - :name: Bob Pair
    :sid: '0043'
    :email: bob@uni.edu
  - :name: Cy Pair
    :sid:
    :email: cy@uni.edu
  :created_at: 2026-11-02 09:30:00.000000000 Z
  :score: 0.0
submission_103:
  :submitters:
  - :name: Dee Empty
    :sid: '0044'
    :email: dee@uni.edu
  :created_at: 2026-11-02 11:00:00.000000000 Z
"""


def gradescope_export(ada=GOOD, pair=GOOD, metadata=GRADESCOPE_METADATA, extra=None) -> dict:
    top = "assignment_7_export/"
    return {
        f"{top}submission_metadata.yml": metadata.encode(),
        # Every notebook carries the assignment's name: the folder, through the metadata, says whose it is.
        f"{top}submission_101/transformers.ipynb": ada,
        # A student's own file of that name is one of their files, never the export's metadata.
        f"{top}submission_101/submission_metadata.yml": b"submission_101:\n  :submitters:\n  - :sid: '0043'\n",
        f"{top}submission_102/transformers.ipynb": pair,
        **(extra or {}),
    }


def write_tree(root: Path, entries: dict) -> Path:
    for name, data in entries.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    return root


@pytest.mark.parametrize("as_zip", [True, False], ids=["export zip", "unzipped export"])
def test_a_gradescope_export_is_one_student_per_submitter(tmp_path, as_zip):
    ada, pair = notebook("attention", marker="ada"), notebook("attention", marker="pair")
    entries = gradescope_export(ada, pair)
    source = make_zip(tmp_path / "export.zip", entries) if as_zip else write_tree(tmp_path / "export", entries)
    result = run(source, tmp_path)
    assert result.layout == "gradescope"
    # Keyed by the roster's student id, else the email; the group's notebook is each member's.
    assert result.students() == ["0042", "0043", "cy_uni.edu"], "the export was not read one student per submitter"
    by_student = {s.student: s for s in result.submissions}
    assert Path(by_student["0042"].path).read_bytes() == ada
    assert Path(by_student["0043"].path).read_bytes() == Path(by_student["cy_uni.edu"].path).read_bytes() == pair
    assert Path(by_student["0043"].path).parent != Path(by_student["cy_uni.edu"].path).parent
    ada_record = by_student["0042"]
    assert (ada_record.name, ada_record.sid, ada_record.email, ada_record.lms) == (
        "Ada Lovelace",
        "0042",
        "ada@uni.edu",
        "gradescope",
    )
    assert ada_record.submitted_at == "2026-11-01T10:00:00+00:00" and ada_record.submission_id == 101
    assert by_student["0043"].group == ["cy_uni.edu"] and by_student["cy_uni.edu"].group == ["0043"]
    assert codes(result, "0043") == codes(result, "cy_uni.edu") == ["group-submission"]
    assert "Cy Pair" in next(f.message for f in result.findings if f.student == "0043")
    # The student's own submission_metadata.yml is just a file of theirs; nobody is a duplicate.
    assert codes(result, "0042") == ["not-a-notebook"]
    assert [m.student for m in result.missing] == ["0044"] and codes(result, "0044") == ["missing-notebook"]
    assert "duplicate" not in codes(result)


def test_a_gradescope_file_outside_the_listed_submissions_is_nobodys(tmp_path):
    entries = gradescope_export(extra={"assignment_7_export/submission_999/transformers.ipynb": GOOD})
    result = run(make_zip(tmp_path / "export.zip", entries), tmp_path)
    assert "999" not in " ".join(result.students())
    stray = [f for f in result.findings if f.code == "unattributed"]
    assert [(f.student, f.file) for f in stray] == [(None, "assignment_7_export/submission_999/transformers.ipynb")]


@pytest.mark.parametrize(
    "metadata, error",
    [
        ("submission_101: [unclosed", "not valid YAML"),
        # The safe loader builds no Python object: this would run a command under yaml.load's full loader.
        ("submission_101: !!python/object/apply:os.system ['touch PWNED']", "not valid YAML"),
        ("- just\n- a list\n", "not a mapping"),
        ("a: " + "[" * 5000 + "]" * 5000, "YAML"),
    ],
    ids=["broken", "python tag", "a list", "deep"],
)
def test_an_unreadable_gradescope_metadata_stops_the_intake(tmp_path, metadata, error, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(IntakeError, match=error):
        run(make_zip(tmp_path / "export.zip", gradescope_export(metadata=metadata)), tmp_path)
    assert not (tmp_path / "PWNED").exists()


def test_gradescope_metadata_is_read_within_a_size_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(submission_metadata, "MAX_METADATA_BYTES", 100)
    with pytest.raises(IntakeError, match="MiB read"):
        run(make_zip(tmp_path / "export.zip", gradescope_export()), tmp_path)


def test_a_gradescope_submitter_who_cannot_be_named_safely_is_refused(tmp_path):
    metadata = GRADESCOPE_METADATA.replace(":sid: '0042'", ":sid: '..\\\\0043'").replace(
        "  - :name: Cy Pair\n    :sid:\n    :email: cy@uni.edu\n", "  - :name: Cy Pair\n"
    )
    result = run(make_zip(tmp_path / "export.zip", gradescope_export(metadata=metadata)), tmp_path)
    assert result.students() == ["0043"], "a submitter with an unsafe or no id was filed"
    refused = sorted((f.code, f.severity, f.student) for f in result.findings if f.student is None)
    assert refused == [("unattributed", "error", None), ("unsafe-name", "error", None)]
    assert codes(result, "0043") == [], "a group of one left is not flagged as a group"


def test_one_folder_per_student_keeps_students_apart(tmp_path):
    alice, bob_old, bob_new = (notebook("attention", marker=m) for m in ("alice", "bob-old", "bob-new"))
    entries = {
        "alice/transformers.ipynb": alice,
        # Alice names a file like Bob's Canvas upload: her folder still says whose it is.
        "alice/bobvictim_222_999_transformers.ipynb": alice,
        "bob/transformers.ipynb": (bob_old, (2026, 11, 1, 10, 0, 0)),
        "bob/transformers-1.ipynb": (bob_new, (2026, 11, 2, 10, 0, 0)),
        "carol/transformers/transformers.ipynb": GOOD,  # nbgrader's submitted/<student>/<assignment>/
    }
    result = run(make_zip(tmp_path / "class.zip", entries), tmp_path)
    assert result.layout == "folder" and result.students() == ["alice", "bob", "carol"]
    assert b"bob-new" in Path(result.submissions[1].path).read_bytes()
    assert codes(result, "alice") == ["duplicate"] and codes(result, "bob") == ["duplicate"]
    assert "222" not in result.students()


@pytest.mark.parametrize(
    "entries, layout, students",
    [
        ({"download/alice.ipynb": GOOD, "download/bob.ipynb": GOOD}, "plain", ["alice", "bob"]),
        ({"x/doejane_111_900_transformers.ipynb": GOOD}, "canvas", ["111"]),
        ({"x/Jane Doe_4_assignsubmission_file_/transformers.ipynb": GOOD}, "moodle", ["4"]),
        ({"x/submitted/alice/a.ipynb": GOOD, "x/submitted/bob/b.ipynb": GOOD}, "folder", ["alice", "bob"]),
        # One folder around one student's notebook named after the assignment: that student's folder.
        ({"alice/transformers.ipynb": GOOD, "alice/notes.txt": b"x"}, "folder", ["alice"]),
    ],
    ids=["plain", "canvas", "moodle", "nested folders", "one student"],
)
def test_a_folder_around_a_class_is_looked_through(tmp_path, entries, layout, students):
    result = run(make_zip(tmp_path / "wrapped.zip", entries), tmp_path)
    assert (result.layout, result.students()) == (layout, students)


# --- names that would file one student's work under another's (issue 31) -----------------------------------


def test_a_backslash_is_never_a_folder_separator(tmp_path):
    """Read as a folder, the backslash made Bob's Moodle folder out of Mallory's Canvas file name."""
    bob, mallory = notebook("attention", marker="bob"), notebook("attention", marker="mallory")
    source = make_zip(
        tmp_path / "canvas.zip",
        {
            "bobvictim_222_901_transformers.ipynb": bob,
            "mallory_111_900_Bob Victim_222_assignsubmission_file_\\transformers.ipynb": mallory,
            "mallory_111_902_..\\bob\\transformers.ipynb": mallory,
            "eve\\bobvictim_222_903_transformers.ipynb": mallory,
        },
    )
    result = run(source, tmp_path)
    assert Path(next(s.path for s in result.submissions if s.student == "222")).read_bytes() == bob
    assert codes(result, "222") == [], "a classmate's file was filed under Bob"
    # Mallory's file that reads as both hers and a Moodle name of Bob's is refused; the other is hers, flagged.
    assert sorted(codes(result, "111")) == ["unsafe-name"]
    kept = next(s for s in result.submissions if s.student == "111")
    assert Path(kept.path) == tmp_path / "out" / "111" / "transformers.ipynb"
    refused = sorted(f.file for f in result.findings if f.code == "unsafe-name" and f.student is None)
    assert refused == [
        "eve\\bobvictim_222_903_transformers.ipynb",
        "mallory_111_900_Bob Victim_222_assignsubmission_file_\\transformers.ipynb",
    ]


def test_names_of_dots_and_control_characters_are_refused_where_they_say_who(tmp_path):
    folder = write_tree(
        tmp_path / "class",
        {
            "....ipynb": GOOD,  # a stem of dots
            "...": b"",  # a folder-less file of dots, not a notebook
            "tab\tname.ipynb": GOOD,
            "rtl\u202egnp.ipynb": GOOD,
            "..../transformers.ipynb": GOOD,  # a student folder of dots
            "alice.ipynb": GOOD,
            "doejane_111_900_..": b"{}",  # the student's own name after Canvas' prefix: flagged, kept
        },
    )
    result = run(folder, tmp_path)
    assert result.students() == ["alice"] and [m.student for m in result.missing] == ["111"]
    assert codes(result, "111") == ["missing-notebook", "not-a-notebook", "unsafe-name"]
    refused = sorted(f.file for f in result.findings if f.code == "unsafe-name" and f.student is None)
    assert refused == ["...", "..../transformers.ipynb", "....ipynb", "rtl\u202egnp.ipynb", "tab\tname.ipynb"]


def nul_zip(path: Path, names: dict[str, bytes]) -> Path:
    """A zip whose names hold a NUL byte where they hold '#' (zipfile cannot write one)."""
    make_zip(path, names, zipfile.ZIP_STORED)
    raw = path.read_bytes()
    for name in names:
        raw = raw.replace(name.encode(), name.replace("#", "\0").encode())
    path.write_bytes(raw)
    return path


def test_a_nul_in_a_name_is_refused_where_it_says_who(tmp_path):
    source = nul_zip(
        tmp_path / "nul.zip",
        {"alice.ipynb#bob.ipynb": GOOD, "doejane_111_900_transformers.ipynb#x": GOOD, "carol.ipynb": GOOD},
    )
    result = run(source, tmp_path)
    # zipfile's name would stop at the NUL, making the first file Alice's; it names nobody for sure.
    assert result.students() == ["carol"]
    assert [m.student for m in result.missing] == ["111"], "the Canvas file stays its sender's"
    assert "unsafe-name" in codes(result, "111")
    assert [f.file for f in result.findings if f.student is None] == ["alice.ipynb\0bob.ipynb"]


@pytest.mark.parametrize(
    "first, second",
    [
        ("Alice", "alice"),  # one folder on a case-insensitive disk
        ("Jos\u00e9", "Jose\u0301"),  # NFC and NFD: look the same, and macOS writes the second
        ("\uff41lice", "alice"),  # a fullwidth letter: NFKC makes it ASCII
        ("Jos\u00e9", "Jos\u00e8"),  # different names whose keys drop the one letter that differs
    ],
    ids=["case", "nfc-nfd", "nfkc", "lossy key"],
)
def test_names_that_would_share_a_key_are_kept_apart_and_flagged(tmp_path, first, second):
    one, two = notebook("attention", marker="one"), notebook("attention", marker="two")
    folder = write_tree(tmp_path / "class", {f"{first}.ipynb": one, f"{second}.ipynb": two})
    result = run(folder, tmp_path)
    keys = result.students()
    assert len(keys) == 2 and keys[0].casefold() != keys[1].casefold(), f"{first!r}, {second!r} shared {keys}"
    contents = sorted(Path(s.path).read_bytes() for s in result.submissions)
    assert contents == sorted([one, two]), "one student's notebook replaced the other's"
    assert [f.code for f in result.findings] == ["name-collision", "name-collision"]
    assert {f.student for f in result.findings} == set(keys)


def test_an_lms_id_keeps_its_key_when_a_file_name_collides_with_it(tmp_path):
    folder = write_tree(tmp_path / "class", {"doejane_111_900_transformers.ipynb": GOOD, "111.ipynb": GOOD})
    result = run(folder, tmp_path)
    assert "111" in result.students() and len(result.students()) == 2
    assert sorted(f.code for f in result.findings) == ["name-collision", "name-collision"]


def test_names_in_other_scripts_get_keys_of_their_own(tmp_path):
    folder = write_tree(tmp_path / "class", {"\u5f20\u4f1f.ipynb": GOOD, "\u674e\u5a1c.ipynb": GOOD})
    result = run(folder, tmp_path)
    assert len(set(result.students())) == 2 and result.findings == []
    assert all(key.startswith("id-") for key in result.students())


def test_a_moodle_display_name_cannot_borrow_another_participants_id(tmp_path):
    forged = "Bob Victim_222_assignsubmission_file_111_assignsubmission_file_"
    source = make_zip(
        tmp_path / "moodle.zip",
        {
            f"{forged}/transformers.ipynb": GOOD,  # a folder ends with Moodle's own mark: participant 111
            f"{forged}transformers.ipynb": GOOD,  # a flat name with two marks: whose cannot be told
            "Bob Victim_222_assignsubmission_file_/transformers.ipynb": GOOD,
        },
    )
    result = run(source, tmp_path)
    assert result.students() == ["111", "222"] and codes(result, "222") == []
    assert [f.code for f in result.findings if f.student is None] == ["unsafe-name"]


def test_course_intake_prints_student_chosen_names_as_one_printable_line(tmp_path, capsys):
    from assignments.cli import main as course

    # A Canvas file name carrying a terminal escape sequence and a line break: the findings that name its
    # sender reach the instructor's terminal as text.
    name = "mallory\x1b]0;owned\x07\x1b[2J\nfake line_1234_5678_hw.ipynb"
    archive = make_zip(tmp_path / "canvas.zip", {name: notebook("unrelated")})
    course(
        [
            "intake",
            "transformers",
            str(archive),
            "--dest",
            str(tmp_path / "out"),
            "--manifest",
            str(tmp_path / "m.json"),
        ]
    )
    printed = capsys.readouterr().out
    assert "\x1b" not in printed and "\x07" not in printed, "an escape sequence from a file name reached the terminal"
    assert "fake line" not in printed.splitlines()[0:1] and not any(
        line.startswith("fake line") for line in printed.splitlines()
    ), "a line break in a file name started a line of its own in course intake's report"
