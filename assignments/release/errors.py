"""What a release run reports: its ``Outcome``, and ``StepFailed`` for a step that refused."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Outcome:
    """What a release run did; ``ok`` only if everything was committed."""

    problems: list[str] = field(default_factory=list)
    released: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    bundles: list[Path] = field(default_factory=list)
    synced_sources: list[Path] = field(default_factory=list)
    after_commit: list[str] = field(default_factory=list)  # problems after release/ was written (bundles)

    @property
    def ok(self) -> bool:
        return not self.problems


class StepFailed(Exception):
    """A step refused this release; the message says which file and why."""
