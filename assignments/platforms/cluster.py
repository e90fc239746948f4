"""A class graded on a batch engine: Slurm job scripts and Kubernetes manifests, rendered for one class by
``course cluster`` (docs/how-to/large-class.md).

Both run the same two steps as a class graded by hand in shards: ``course grade --shard i/N`` once per shard,
each into a run folder of its own on storage every node reads and writes, then ``course merge`` once every
shard has succeeded. Each shard's request (cores, memory, a time limit) comes from the sizing rule
(``sizing.request``) for the students it holds.

- **Slurm**: ``grade.sbatch``, an array job of N tasks (task i grades shard i, ``$SLURM_ARRAY_TASK_ID``);
  ``merge.sbatch``, submitted with ``--dependency=afterok:<array job>`` so that it starts only once every
  task has succeeded (and is cancelled when one fails: ``--kill-on-invalid-dep=yes``); ``submit.sh``
  submits both and writes their job ids to ``jobs``.
- **Kubernetes**: ``pvc.yaml``, a ReadWriteMany claim every pod mounts (the download under ``input/``, the
  runs under ``runs/``); ``grade-job.yaml``, an Indexed Job of N completions (pod i grades shard i, its
  completion index through the downward API); ``merge-job.yaml``, a Job the instructor applies once the
  grading Job is complete (``submit.sh``: ``kubectl wait --for=condition=complete`` between the two).

Every value that comes from the instructor (an assignment name, a path, an image, a claim's name) reaches a
shell only through ``shlex.quote``, and reaches a Kubernetes container as one element of its ``args`` (no
shell at all); names that land in a Slurm ``#SBATCH`` line or a Kubernetes object's name are checked against
the characters those allow and refused otherwise (docs/security.md).
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from assignments import sizing

ENGINES = ("slurm", "kubernetes")
# A Slurm partition or account, a Kubernetes object or secret name: what the schedulers accept, and nothing
# a shell or a directive line could read as more than one word.
SLURM_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
KUBERNETES_NAME = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
# An image reference: registry/path:tag or @sha256:digest; no spaces or quotes.
IMAGE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}")


class ClusterError(ValueError):
    """An instructor's value a rendered script or manifest cannot carry safely; the message says which."""


def count_notebooks(download: Path) -> int:
    """The class size as a download gives it: the notebooks in a zip or a folder (one notebook: 1)."""
    if download.is_dir():
        return sum(1 for _ in download.rglob("*.ipynb"))
    if zipfile.is_zipfile(download):
        with zipfile.ZipFile(download) as archive:
            return sum(1 for name in archive.namelist() if name.lower().endswith(".ipynb"))
    return 1


def shown(text: str) -> str:
    """An instructor's value in a message: quoted, escaped, cut (a newline or escape sequence prints as such)."""
    return json.dumps(text)[:80]


def kubernetes_name(text: str, what: str) -> str:
    if not KUBERNETES_NAME.fullmatch(text):
        raise ClusterError(
            f"{what} {shown(text)} is not a Kubernetes name (lower-case letters, digits and '-', "
            "at most 63, starting and ending with a letter or digit)"
        )
    return text


def slurm_name(text: str, what: str) -> str:
    if not SLURM_NAME.fullmatch(text):
        raise ClusterError(f"{what} {shown(text)} may hold only letters, digits, '_', '.' and '-'")
    return text


def slug(text: str) -> str:
    """A name for a job made of an assignment's name: lower-case letters, digits and '-' only."""
    cleaned = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return cleaned[:40].strip("-") or "assignment"


@dataclass
class Plan:
    """One class on one engine."""

    assignment: str
    download: Path
    shards: int
    workers: int
    students: int
    root: Path | None = None
    figures: sizing.Figures | None = field(default_factory=sizing.figures)

    @property
    def per_shard(self) -> int:
        # Shards split by a hash of the student key: allow for an uneven split (a quarter more, at least 2).
        even = -(-self.students // self.shards) if self.students else 1
        return max(even + max(2, even // 4), 1)

    def request(self) -> sizing.Request:
        return sizing.request(self.per_shard, self.workers, self.figures)

    def merge_request(self) -> sizing.Request:
        # merging reads records and writes exports: one core, the supervising process's memory, minutes
        return sizing.Request(cpus=1, memory_mb=2048, minutes=30)


# --- Slurm -------------------------------------------------------------------------------------------------


def slurm_duration(minutes: int) -> str:
    return f"{minutes // 60:d}:{minutes % 60:02d}:00"


def slurm_pattern(folder: Path, name: str) -> str:
    """``folder/name`` for sbatch's --output, where '%' starts a pattern (``name``'s ``%a``: the task) and
    '%%' is a literal one: the folder's own '%' are doubled."""
    return str(folder).replace("%", "%%") + "/" + name


def render_slurm(
    plan: Plan,
    out: Path,
    *,
    course_command: list[str] | None = None,
    partition: str | None = None,
    account: str | None = None,
    merged: Path | None = None,
) -> dict[str, Path]:
    """Write grade.sbatch, merge.sbatch and submit.sh into ``out``; returns name -> path."""
    out = out.resolve()
    runs = out / "runs"
    merged = (merged or out / "merged").resolve()
    logs = out / "logs"
    course = course_command or [sys.executable, "-m", "assignments"]
    root = ["--root", str(plan.root.resolve())] if plan.root else []
    q = shlex.quote
    course_words = " ".join(q(word) for word in course)
    directives = []
    if partition:
        directives.append(f"#SBATCH --partition={slurm_name(partition, '--partition')}")
    if account:
        directives.append(f"#SBATCH --account={slurm_name(account, '--account')}")
    name = slug(plan.assignment)
    grade, merge = plan.request(), plan.merge_request()
    header = (
        "#!/bin/bash\n"
        f"# Rendered by `course cluster slurm` for a class of {plan.students} student(s) in {plan.shards} "
        "shard(s); submit with submit.sh.\n"
    )
    grade_script = header + "\n".join(
        [
            f"#SBATCH --job-name=course-grade-{name}",
            f"#SBATCH --array=0-{plan.shards - 1}",
            "#SBATCH --ntasks=1",
            f"#SBATCH --cpus-per-task={grade.cpus}",
            f"#SBATCH --mem={grade.memory_mb}M",
            f"#SBATCH --time={slurm_duration(grade.minutes)}",
            *directives,
            "set -euo pipefail",
            'shard="${SLURM_ARRAY_TASK_ID:?submit this script with sbatch (submit.sh does)}"',
            f"exec {course_words} grade {q(plan.assignment)} {q(str(plan.download.resolve()))} "
            f'--shard "$shard/{plan.shards}" --workers {plan.workers} --out {q(str(runs))}/shard-"$shard"'
            + "".join(f" {q(word)}" for word in root),
            "",
        ]
    )
    shard_runs = " ".join(q(str(runs / f"shard-{i}")) for i in range(plan.shards))
    merge_script = header + "\n".join(
        [
            f"#SBATCH --job-name=course-merge-{name}",
            "#SBATCH --ntasks=1",
            f"#SBATCH --cpus-per-task={merge.cpus}",
            f"#SBATCH --mem={merge.memory_mb}M",
            f"#SBATCH --time={slurm_duration(merge.minutes)}",
            *directives,
            "set -euo pipefail",
            f"exec {course_words} merge {q(plan.assignment)} {shard_runs} --out {q(str(merged))}"
            + "".join(f" {q(word)}" for word in root),
            "",
        ]
    )
    submit = "\n".join(
        [
            "#!/bin/bash",
            "# Submits the grading array job, then the merge, which starts once every shard has succeeded.",
            "# --wait: return once the merge has finished (its exit status; sbatch --wait).",
            "set -euo pipefail",
            "wait=()",
            'if [ "${1:-}" = "--wait" ]; then wait=(--wait); fi',
            f"cd {q(str(out))}",
            f"mkdir -p {q(str(logs))} {q(str(runs))}",
            f"grade=$(sbatch --parsable --output={q(slurm_pattern(logs, 'grade-%a.log'))} grade.sbatch)",
            'grade="${grade%%;*}"  # --parsable prints "jobid" or "jobid;cluster"',
            f'echo "grading: array job $grade, {plan.shards} shard(s); logs in "{q(str(logs))}',
            f'if ! merge=$(sbatch --parsable "${{wait[@]}}" --dependency=afterok:"$grade" --kill-on-invalid-dep=yes '
            f"--output={q(slurm_pattern(logs, 'merge.log'))} merge.sbatch); then",
            '    echo "the merge failed, or was cancelled because a shard failed: sacct -j $grade says which;" \\',
            '        "submit that task again (sbatch --array=<i> grade.sbatch), then merge.sbatch" >&2',
            "    exit 1",
            "fi",
            'merge="${merge%%;*}"',
            'printf "%s %s\\n" "$grade" "$merge" > jobs',
            'if [ ${#wait[@]} -gt 0 ]; then state="finished"; else state="submitted, to start once all succeed"; fi',
            f'echo "merge: job $merge, $state; merged run: "{q(str(merged))}',
            "",
        ]
    )
    written = {}
    out.mkdir(parents=True, exist_ok=True)
    for filename, text, mode in (
        ("grade.sbatch", grade_script, 0o644),
        ("merge.sbatch", merge_script, 0o644),
        ("submit.sh", submit, 0o755),
    ):
        path = out / filename
        path.write_text(text, encoding="utf-8")
        path.chmod(mode)
        written[filename] = path
    return written


# --- Kubernetes --------------------------------------------------------------------------------------------

# The capabilities a container gets by default from podman (and, but for NET_RAW and MKNOD, containerd and
# CRI-O), with which the grader image grades in tests/rehearsals/test_grader_image.py: the sandbox's fallback needs
# SETUID/SETGID (a uid per kernel), CHOWN/FOWNER/DAC_OVERRIDE (its scratch) and KILL (teardown).
BASELINE_CAPABILITIES = ["CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID", "SETPCAP"]
POD_SECURITY = ("baseline", "restricted")
NONROOT_UID = 10001


def security_context(level: str) -> tuple[dict, dict]:
    """(the pod's, the container's) securityContext for a Pod Security level.

    ``baseline``: root in the container, without privilege or host namespaces, with only the capabilities
    above: the sandbox's fallback (no namespaces, as on Gradescope) runs each kernel under a uid of its own.
    ``restricted``: a non-root uid, no capabilities, no privilege escalation; the sandbox then has neither
    namespaces nor other uids, so every kernel runs as the grader's uid and a batch grades one submission
    at a time (docs/security.md: a student's code can read what the grader can, the hidden tests included)."""
    seccomp = {"type": "RuntimeDefault"}
    if level == "restricted":
        pod = {
            "runAsNonRoot": True,
            "runAsUser": NONROOT_UID,
            "runAsGroup": NONROOT_UID,
            "fsGroup": NONROOT_UID,
            "seccompProfile": seccomp,
        }
        container = {
            "allowPrivilegeEscalation": False,
            "privileged": False,
            "capabilities": {"drop": ["ALL"]},
            "seccompProfile": seccomp,
        }
        return pod, container
    pod = {"runAsUser": 0, "runAsGroup": 0, "seccompProfile": seccomp}
    container = {
        # the sandbox sets no_new_privs itself before its seccomp filter; root's setuid() needs no escalation
        "allowPrivilegeEscalation": False,
        "privileged": False,
        "capabilities": {"drop": ["ALL"], "add": list(BASELINE_CAPABILITIES)},
        "seccompProfile": seccomp,
    }
    return pod, container


def kubernetes_objects(
    plan: Plan,
    *,
    image: str,
    claim: str = "course-grading",
    pull_secret: str = "registry-credentials",
    namespace: str | None = None,
    storage_class: str | None = None,
    storage: str = "20Gi",
    pod_security: str = "baseline",
) -> dict[str, dict]:
    """The claim, the grading Indexed Job and the merge Job as Python objects (file name -> object)."""
    if not IMAGE.fullmatch(image):
        raise ClusterError(f"--image {shown(image)} is not an image reference (registry/name:tag)")
    kubernetes_name(claim, "--claim")
    kubernetes_name(pull_secret, "--pull-secret")
    if namespace is not None:
        kubernetes_name(namespace, "--namespace")
    if storage_class is not None:
        kubernetes_name(storage_class, "--storage-class")
    if pod_security not in POD_SECURITY:
        raise ClusterError(f"--pod-security must be one of {', '.join(POD_SECURITY)}")
    name = slug(plan.assignment)
    workers = 1 if pod_security == "restricted" else plan.workers
    plan = Plan(plan.assignment, plan.download, plan.shards, workers, plan.students, plan.root, plan.figures)
    grade, merge = plan.request(), plan.merge_request()
    download = f"/autograder/input/{plan.download.name}"
    labels = {"app.kubernetes.io/name": "course-grader", "course.grading/assignment": name}

    def meta(object_name: str) -> dict:
        found = {"name": object_name, "labels": dict(labels)}
        if namespace:
            found["namespace"] = namespace
        return found

    pod_context, container_context = security_context(pod_security)
    volumes = [{"name": "grading", "persistentVolumeClaim": {"claimName": claim}}]
    mounts = [
        {"name": "grading", "mountPath": "/autograder/input", "subPath": "input", "readOnly": True},
        {"name": "grading", "mountPath": "/runs", "subPath": "runs"},
    ]
    env = [{"name": "HOME", "value": "/tmp"}] if pod_security == "restricted" else []  # root's is not its own

    def pod(args: list[str], request: sizing.Request, more_env: list[dict]) -> dict:
        return {
            "metadata": {"labels": dict(labels)},
            "spec": {
                "restartPolicy": "Never",
                # Replace with the Secret that holds your registry's credentials (kubectl create secret
                # docker-registry ...); a public image needs none, and a missing secret only warns.
                "imagePullSecrets": [{"name": pull_secret}],
                "securityContext": pod_context,
                "automountServiceAccountToken": False,
                "containers": [
                    {
                        "name": "grader",
                        "image": image,
                        "imagePullPolicy": "IfNotPresent",
                        "command": ["course"],
                        "args": args,
                        "env": more_env + env,
                        "resources": {
                            "requests": {"cpu": str(request.cpus), "memory": f"{request.memory_mb}Mi"},
                            "limits": {"memory": f"{request.memory_mb}Mi"},
                        },
                        "securityContext": container_context,
                        "volumeMounts": mounts,
                    }
                ],
                "volumes": volumes,
            },
        }

    shard_env = [
        {
            "name": "SHARD",
            "valueFrom": {
                "fieldRef": {"fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}
            },
        }
    ]
    grade_args = [
        "grade",
        plan.assignment,
        download,
        "--shard",
        f"$(SHARD)/{plan.shards}",
        "--workers",
        str(workers),
        "--out",
        "/runs/shard-$(SHARD)",
    ]
    merge_args = ["merge", plan.assignment, *(f"/runs/shard-{i}" for i in range(plan.shards)), "--out", "/runs/merged"]
    grade_job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta(f"course-grade-{name}"),
        "spec": {
            "completionMode": "Indexed",
            "completions": plan.shards,
            "parallelism": plan.shards,
            "backoffLimitPerIndex": 2,  # a shard that fails is retried twice; the others go on
            "activeDeadlineSeconds": grade.minutes * 60 * 3,
            "ttlSecondsAfterFinished": 7 * 24 * 3600,
            "template": pod(grade_args, grade, shard_env),
        },
    }
    merge_job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta(f"course-merge-{name}"),
        "spec": {
            "completions": 1,
            "backoffLimit": 1,
            "activeDeadlineSeconds": merge.minutes * 60,
            "ttlSecondsAfterFinished": 7 * 24 * 3600,
            "template": pod(merge_args, merge, []),
        },
    }
    claim_spec = {
        "accessModes": ["ReadWriteMany"],  # every shard's pod writes, on whichever node it runs
        "resources": {"requests": {"storage": storage}},
    }
    if storage_class:
        claim_spec["storageClassName"] = storage_class
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta(claim), "spec": claim_spec}
    return {"pvc.yaml": pvc, "grade-job.yaml": grade_job, "merge-job.yaml": merge_job}


def render_kubernetes(plan: Plan, out: Path, **options) -> dict[str, Path]:
    """Write pvc.yaml, grade-job.yaml, merge-job.yaml and submit.sh into ``out``; returns name -> path."""
    import yaml

    objects = kubernetes_objects(plan, **options)
    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    notes = {
        "pvc.yaml": "A ReadWriteMany claim (NFS, CephFS, Azure Files, EFS...): every shard's pod writes its run "
        "there, on whichever node it runs. Copy the download into its input/ folder before the Jobs.",
        "grade-job.yaml": "The Indexed Job: pod i grades shard i. Requests from the sizing rule "
        "(assignments/sizing.py). imagePullSecrets: replace with your registry's Secret.",
        "merge-job.yaml": "Apply once the grading Job is complete (submit.sh waits for it with kubectl wait).",
    }
    for filename, body in objects.items():
        plain = json.loads(json.dumps(body))  # no object shared twice, so no YAML anchors and aliases
        text = f"# Rendered by `course cluster kubernetes`. {notes[filename]}\n" + yaml.safe_dump(
            plain, sort_keys=False, default_flow_style=False, width=1000
        )
        path = out / filename
        path.write_text(text, encoding="utf-8")
        written[filename] = path
    grade_name = objects["grade-job.yaml"]["metadata"]["name"]
    deadline = objects["grade-job.yaml"]["spec"]["activeDeadlineSeconds"]
    namespace = objects["grade-job.yaml"]["metadata"].get("namespace")
    ns = f" --namespace {shlex.quote(namespace)}" if namespace else ""
    submit = "\n".join(
        [
            "#!/bin/bash",
            "# Applies the claim and the grading Job, waits until every shard has succeeded, then runs the merge.",
            "set -euo pipefail",
            f"cd {shlex.quote(str(out))}",
            f"kubectl{ns} apply -f pvc.yaml",
            f"kubectl{ns} apply -f grade-job.yaml",
            f"if ! kubectl{ns} wait --for=condition=complete --timeout={deadline}s job/{grade_name}; then",
            f'    echo "job/{grade_name} did not complete: kubectl{ns} describe job/{grade_name} names the failed" \\',
            '        "indexes; grade those shards again (the same command, --shard i/N), then apply merge-job.yaml" >&2',
            "    exit 1",
            "fi",
            f"kubectl{ns} apply -f merge-job.yaml",
            "",
        ]
    )
    path = out / "submit.sh"
    path.write_text(submit, encoding="utf-8")
    path.chmod(0o755)
    written["submit.sh"] = path
    return written
