"""``course cluster``: a class graded on a batch engine (Slurm, Kubernetes), its job scripts or manifests
rendered for one class (``assignments/platforms/cluster.py``)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from assignments.cli import arguments
from assignments.cli.help import add_command
from assignments.cli.options import course_of, root_option
from assignments.platforms import cluster
from assignments.sizing import estimate


def _names_ok(args, course) -> None:
    """Every name that lands in an #SBATCH line or a Kubernetes object, checked before anything is written."""
    checks = [
        ("partition", cluster.slurm_name, "--partition"),
        ("account", cluster.slurm_name, "--account"),
        ("claim", cluster.kubernetes_name, "--claim"),
        ("pull_secret", cluster.kubernetes_name, "--pull-secret"),
        ("namespace", cluster.kubernetes_name, "--namespace"),
        ("storage_class", cluster.kubernetes_name, "--storage-class"),
    ]
    try:
        for key, check, flag in checks:
            if getattr(args, key) is not None:
                check(getattr(args, key), flag)
        if args.engine == "kubernetes" and not cluster.IMAGE.fullmatch(args.image):
            raise cluster.ClusterError(f"--image {cluster.shown(args.image)} is not an image reference")
    except cluster.ClusterError as error:
        raise arguments.BadInput(str(error)) from None


def cmd_cluster(args) -> int:
    course = course_of(args)
    assignment = course.assignment(args.assignment)
    out = Path(args.out) if args.out else course.build_dir / "cluster" / args.engine / assignment.name
    students = args.students or cluster.count_notebooks(Path(args.submissions))
    plan = cluster.Plan(
        assignment.name,
        Path(args.submissions).resolve(),
        args.shards,
        args.workers,
        students,
        Path(args.root).resolve() if args.root else None,
    )
    try:
        if args.engine == "slurm":
            written = cluster.render_slurm(
                plan,
                out,
                course_command=shlex.split(args.course_command) if args.course_command else None,
                partition=args.partition,
                account=args.account,
                merged=args.merged,
            )
        else:
            options = {"image": args.image, "pod_security": args.pod_security, "storage": args.storage}
            for key in ("claim", "pull_secret", "namespace", "storage_class"):
                if getattr(args, key) is not None:
                    options[key] = getattr(args, key)
            written = cluster.render_kubernetes(plan, out, **options)
    except cluster.ClusterError as error:
        print(f"course cluster: {error}", file=sys.stderr)
        return 2
    request = plan.request()
    print(
        f"{args.engine}: {students} student(s) in {args.shards} shard(s) of at most about {plan.per_shard}; each "
        f"shard asks for {request.cpus} core(s), {request.memory_mb} MB and {request.minutes} min"
    )
    source = plan.figures
    if source is not None:
        print(estimate(students, args.workers * args.shards, source).line(source))
    for path in written.values():
        print(f"wrote {path}")
    print(f"run: {written['submit.sh']}")
    return 0


def register(sub) -> None:
    parser = add_command(
        sub,
        "cluster",
        help="render the job scripts (Slurm) or manifests (Kubernetes) that grade a class in shards and merge them",
        example=[
            "course cluster slurm transformers canvas.zip --shards 8 --workers 4 --out build/slurm",
            "course cluster kubernetes transformers canvas.zip --shards 8 --image registry.example.edu/grader:fall "
            "--out build/k8s",
        ],
    )
    parser.add_argument("engine", choices=("slurm", "kubernetes"), help="the batch engine")
    arguments.assignment(parser, from_root=True)
    arguments.download(parser)
    parser.add_argument("--shards", type=arguments.count, required=True, help="how many shards (array tasks, pods)")
    parser.add_argument("--workers", type=arguments.count, default=2, help="workers (cores) per shard (default: 2)")
    parser.add_argument(
        "--students",
        type=arguments.count,
        default=None,
        help="the class size the requests are sized for (default: the notebooks in the download)",
    )
    arguments.output_folder(
        parser,
        help="where the scripts or manifests are written (default: build/cluster/<engine>/<assignment>)",
        run=False,
    )
    root_option(parser)
    slurm = parser.add_argument_group("slurm")
    slurm.add_argument("--partition", default=None, help="the partition to submit to (default: the cluster's)")
    slurm.add_argument("--account", default=None, help="the account to charge (default: yours)")
    slurm.add_argument(
        "--course-command",
        default=None,
        help="how the compute nodes start this course's command line (default: this Python, -m assignments)",
    )
    slurm.add_argument("--merged", type=Path, default=None, help="the merged run's folder (default: <out>/merged)")
    k8s = parser.add_argument_group("kubernetes")
    k8s.add_argument("--image", default="localhost/course-grader:engine", help="the grader image (make image)")
    k8s.add_argument("--claim", default=None, help="the ReadWriteMany claim's name (default: course-grading)")
    k8s.add_argument(
        "--pull-secret", default=None, help="the registry Secret's name (default: registry-credentials, a placeholder)"
    )
    k8s.add_argument("--namespace", default=None)
    k8s.add_argument("--storage-class", default=None, help="a storage class that provides ReadWriteMany")
    k8s.add_argument("--storage", default="20Gi", help="the claim's size (default: 20Gi)")
    k8s.add_argument(
        "--pod-security",
        choices=("baseline", "restricted"),
        default="baseline",
        help="baseline (default): root in the pod, each kernel under a uid of its own; restricted: a non-root "
        "uid, one submission at a time per pod, kernels as the grader's uid (docs/security.md)",
    )
    arguments.own_check(parser, _names_ok)
    parser.set_defaults(func=cmd_cluster)
