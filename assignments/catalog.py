"""The course catalog: assignments in course order, their titles and declared point totals.

The declared totals are the contract with the LMS gradebook: each source notebook's graded cells must add
up to its assignment's ``total_points`` (``course catalog`` prints both, and a test checks they agree).
Change a total here when a notebook's points change on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import notebooks
from .paths import SOURCE_DIR


@dataclass(frozen=True)
class CatalogEntry:
    name: str            # folder and notebook name: source/<name>/<name>.ipynb
    title: str           # what students see in the LMS and the bundle README
    total_points: float  # declared total; the notebook's graded cells must add up to it


CATALOG: tuple[CatalogEntry, ...] = (
    CatalogEntry("transformers", "Transformers from scratch: attention, a mini BERT, masked-LM pre-training, "
                                 "and frozen-BERT sentiment", 48),
    CatalogEntry("rnn_attention", "From recurrence to attention", 40),
    CatalogEntry("transfer_lm", "A transformer language model, and what pre-training buys a classifier", 32),
)

COURSE_ORDER = [entry.name for entry in CATALOG]


def entry(name: str) -> CatalogEntry:
    for item in CATALOG:
        if item.name == name:
            return item
    raise KeyError(f"{name!r} is not in the course catalog (assignments/catalog.py); known: {', '.join(COURSE_ORDER)}")


def title(name: str) -> str:
    try:
        return entry(name).title
    except KeyError:
        return name


@dataclass(frozen=True)
class AssignmentPoints:
    name: str
    declared: float | None            # None: not in the catalog
    questions: list[notebooks.Question] | None  # None: no source notebook yet

    @property
    def total(self) -> float | None:
        return None if self.questions is None else sum(q.points for q in self.questions)

    @property
    def matches(self) -> bool:
        return self.questions is not None and self.declared is not None and abs(self.total - self.declared) < 1e-9


def points(name: str, source_dir: Path = SOURCE_DIR) -> AssignmentPoints:
    """The declared total beside what the source notebook's graded cells add up to."""
    declared = entry(name).total_points if name in COURSE_ORDER else None
    try:
        path = notebooks.notebook_path(name, source_dir)
    except FileNotFoundError:
        return AssignmentPoints(name, declared, None)
    return AssignmentPoints(name, declared, notebooks.questions(notebooks.read(path)))


def all_names(source_dir: Path = SOURCE_DIR) -> list[str]:
    """Catalog assignments plus any source folder the catalog does not know yet (reported as a problem)."""
    present = sorted(p.name for p in source_dir.iterdir() if p.is_dir() and any(p.glob("*.ipynb"))) \
        if source_dir.is_dir() else []
    return COURSE_ORDER + [name for name in present if name not in COURSE_ORDER]


def render(name: str, source_dir: Path = SOURCE_DIR) -> tuple[str, bool]:
    """A printable block for one assignment, and whether its points agree with the catalog."""
    info = points(name, source_dir)
    lines = [f"{name}: {title(name)}"]
    if info.questions is None:
        lines.append(f"  (no source notebook yet: {source_dir.name}/{name}/{name}.ipynb)")
        lines.append(f"  declared total {info.declared:g}")
        return "\n".join(lines), True
    width = max([len(q.grade_id or "?") for q in info.questions] + [8])
    for q in info.questions:
        lines.append(f"  {q.grade_id or '?':<{width}}  {q.kind:<10}  {q.points:>5g}")
    auto = sum(q.points for q in info.questions if q.kind == "autograded")
    manual = sum(q.points for q in info.questions if q.kind == "manual")
    lines.append(f"  {'total':<{width}}  {'':<10}  {info.total:>5g}  (autograded {auto:g}, manual {manual:g})")
    if info.declared is None:
        lines.append(f"  PROBLEM: {name} is not in the course catalog (assignments/catalog.py)")
    elif not info.matches:
        lines.append(f"  PROBLEM: the notebook's points add up to {info.total:g}, the catalog declares "
                     f"{info.declared:g} (assignments/catalog.py)")
    else:
        lines.append(f"  declared total {info.declared:g}: ok")
    return "\n".join(lines), info.declared is not None and info.matches
