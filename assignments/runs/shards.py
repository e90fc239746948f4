"""The shards of a class graded in parts (``course grade --shard i/N``).

Student ``s`` belongs to shard ``sha256(s) mod N``, so every machine that reads the same download grades a
fixed slice of the class without talking to the others, whatever order the download lists students in.
``i`` counts from 0, as a Kubernetes Indexed Job's ``JOB_COMPLETION_INDEX`` does. Each run records the
shard it graded (``<run>/shard.json``), which ``course merge`` checks every record against (``merge.py``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from assignments.runs.folder import Run, as_run


@dataclass(frozen=True)
class Shard:
    index: int  # 0 .. count - 1
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"i/N"`` with 0 <= i < N; ValueError with a sentence otherwise."""
        try:
            index, count = (int(part) for part in str(text).split("/"))
        except ValueError:
            raise ValueError(f"a shard is written i/N (such as 0/3), not {text!r}") from None
        if count < 1 or not 0 <= index < count:
            raise ValueError(f"shard {text!r}: i must be 0 to N-1 (shards count from 0) and N at least 1")
        return cls(index, count)

    def owns(self, student: str) -> bool:
        return shard_of(student, self.count) == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def shard_of(student: str, count: int) -> int:
    """The shard of ``count`` that grades ``student``: the same on every machine and Python (no hash seed)."""
    return int.from_bytes(hashlib.sha256(student.encode("utf-8")).digest()[:8], "big") % count


def write_shard(run: Run | Path, shard: Shard | None) -> Path:
    """Record in the run which shard of the class it grades (None: the whole class, 0/1), so that
    ``course merge`` can check that every record it takes from the run belongs to that shard."""
    path = as_run(run).shard
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"shard": str(shard or Shard(0, 1))}) + "\n", encoding="utf-8")
    return path


def read_shard(run: Run) -> Shard:
    """The shard ``run`` graded (``write_shard``); ValueError with a sentence when the run does not say."""
    path = run.shard
    if path.is_symlink() or not path.is_file():
        raise ValueError(
            f"{run.root} does not say which shard it graded (no {path.name}): grade it again with "
            "`course grade --shard i/N`, which records it"
        )
    try:
        return Shard.parse(json.loads(path.read_text(encoding="utf-8"))["shard"])
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path} is not a shard record ({error})") from None
