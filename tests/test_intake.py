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
    plain = parse_name("sub/j.doe@uni.ipynb")
    assert (plain["lms"], plain["student"]) == ("plain", "j.doe_uni")


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
    who = parse_name("export/Ann Lee_5_assignsubmission_file_/Zed_9_assignsubmission_file_/z_9_10_x.ipynb")
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
