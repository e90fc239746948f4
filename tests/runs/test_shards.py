"""Which shard grades a student (assignments/runs/shards.py): written i/n, every student in exactly one, fixed by
their key alone.
"""

from __future__ import annotations

import pytest

from assignments.runs.shards import Shard, shard_of


def test_a_shard_is_written_i_of_n_counting_from_zero():
    assert Shard.parse("0/3") == Shard(0, 3)
    assert str(Shard.parse("2/3")) == "2/3"
    for wrong in ("3/3", "-1/3", "1/0", "1", "a/b", "1/2/3"):
        with pytest.raises(ValueError, match="shard"):
            Shard.parse(wrong)


def test_every_student_falls_in_exactly_one_shard():
    students = [f"student{n}" for n in range(200)] + ["ada@example.edu", "O'Brien, Siobhán"]
    shards = [Shard(i, 3) for i in range(3)]
    for student in students:
        owners = [shard for shard in shards if shard.owns(student)]
        assert len(owners) == 1, f"{student!r} belongs to {owners}, expected exactly one of three shards"
    sizes = [sum(shard.owns(s) for s in students) for shard in shards]
    assert min(sizes) > 40, f"202 students should spread over three shards, got {sizes}"


def test_the_shard_of_a_student_is_fixed_by_their_key_alone():
    # A hash seeded per process (Python's hash()) would put one student in two machines' shards: the value
    # is the first 8 bytes of SHA-256, so it is the same on every machine, today and after an upgrade.
    assert [shard_of("alice", 3), shard_of("bob", 3), shard_of("12345", 7)] == [2, 2, 6]
