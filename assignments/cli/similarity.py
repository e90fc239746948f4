"""``course similarity``: the staff-only similarity report."""

from __future__ import annotations

import time
from pathlib import Path

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of
from assignments.escaping import one_line
from assignments.runs.folder import Run
from assignments.similarity import report as similarity_report


def cmd_similarity(args) -> int:
    assignment = course_of(args).assignment(args.assignment)
    out = Path(args.out) if args.out else Run.of_term(assignment).similarity
    started = time.perf_counter()
    comparison = similarity_report.similarity_report(assignment, Path(args.submissions), out, args.top, args.workers)
    print(similarity_report.table(comparison, args.top))
    for student in comparison.students:
        if student.problem is not None:
            print(f"not compared: {one_line(student.student)}: {one_line(student.problem)}")
        for note in student.notes:
            print(f"note: {one_line(student.student)}: {one_line(note)}")
    print(
        f"report: {out / 'similarity.html'}\ndata: {out / 'similarity.json'}\n({time.perf_counter() - started:.1f} s)"
    )
    return 0


def register(sub) -> None:
    parser = add_command(
        sub,
        "similarity",
        help="compare the class's answer cells pairwise and write a ranked HTML report of the most similar pairs",
        example="course similarity transformers submissions.zip --top 10",
    )
    arguments.assignment(parser)
    arguments.download(parser)
    arguments.output_folder(parser, help="output folder (default: grades/<term>/<assignment>/similarity)")
    parser.add_argument(
        "--top",
        type=arguments.count,
        default=similarity_report.TOP,
        help=f"pairs shown side by side (default {similarity_report.TOP})",
    )
    parser.add_argument(
        "--workers", type=arguments.count, default=None, help="processes reading notebooks (default: CPU cores)"
    )
    parser.set_defaults(func=cmd_similarity)
