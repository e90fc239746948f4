"""`course cluster` (assignments/platforms/cluster.py) without a cluster: the rendered Slurm scripts run under bash with
a stand-in for the course's command and for sbatch, so that what each would start is seen word for word; a
hostile assignment name and hostile paths (shell syntax, quotes, a newline, Slurm's '%') must arrive as the
same single words and run nothing; names that land in an #SBATCH line or a Kubernetes object are refused when
they could carry more. The sizing rule the requests come from (assignments/sizing.py) is checked too.

The real cluster runs are tests/rehearsals/test_slurm.py (Slurm) and tests/platforms/test_kubernetes_manifests.py (the API's schema).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assignments import sizing
from assignments.cli import main as course
from assignments.platforms import cluster

HOSTILE = "a b'$(touch PWNED)`touch PWNED`\"; touch PWNED;\n%a%j\\"
ECHO = "import json, os, sys\nopen(os.environ['ARGV_LOG'], 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n"
FAKE_SBATCH = (
    "#!/usr/bin/env python3\nimport json, os, sys\n"
    "open(os.environ['ARGV_LOG'], 'a').write(json.dumps(['sbatch'] + sys.argv[1:]) + '\\n')\n"
    "print('41' if 'grade.sbatch' in sys.argv else '42;course')\n"
)
FIGURES = sizing.Figures(cpu_s_per_submission=3.0, mb_per_worker=700, students=256, assignment="toy", machine="m")


def logged(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_hostile_names_and_paths_reach_the_course_command_as_single_words_and_run_nothing(tmp_path):
    hostile = tmp_path / HOSTILE
    hostile.mkdir()
    download = hostile / f"{HOSTILE}.zip"
    download.write_bytes(b"")
    root = hostile / "course"
    echo = tmp_path / "echo_args.py"
    echo.write_text(ECHO)
    plan = cluster.Plan(HOSTILE, download, 3, 2, 30, root, FIGURES)
    out = hostile / "slurm"
    written = cluster.render_slurm(plan, out, course_command=[sys.executable, str(echo)])
    log = tmp_path / "argv.log"
    env = {**os.environ, "ARGV_LOG": str(log), "SLURM_ARRAY_TASK_ID": "1"}
    for script in ("grade.sbatch", "merge.sbatch"):
        ran = subprocess.run(["bash", str(written[script])], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert ran.returncode == 0, ran.stderr
    grade, merge = logged(log)
    runs = str(out.resolve() / "runs")
    root_words = ["--root", str(root.resolve())]
    assert grade == ["grade", HOSTILE, str(download.resolve()), "--shard", "1/3", "--workers", "2", "--out"] + [
        f"{runs}/shard-1",
        *root_words,
    ], grade
    assert merge == ["merge", HOSTILE, *(f"{runs}/shard-{i}" for i in range(3)), "--out"] + [
        str(out.resolve() / "merged"),
        *root_words,
    ], merge
    # submit.sh with a stand-in sbatch: the array job, then the merge after it, each with its log path
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "sbatch").write_text(FAKE_SBATCH)
    (bin_dir / "sbatch").chmod(0o755)
    log.unlink()
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    ran = subprocess.run([str(written["submit.sh"])], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    first, second = logged(log)
    logs = str(out.resolve() / "logs").replace("%", "%%")
    assert first == ["sbatch", "--parsable", f"--output={logs}/grade-%a.log", "grade.sbatch"], first
    assert second == ["sbatch", "--parsable", "--dependency=afterok:41", "--kill-on-invalid-dep=yes"] + [
        f"--output={logs}/merge.log",
        "merge.sbatch",
    ], second
    assert (out / "jobs").read_text().split() == ["41", "42"]
    assert "merge: job 42, submitted" in ran.stdout, ran.stdout
    # --wait: sbatch waits for the merge (its exit status is the merge's)
    log.unlink()
    ran = subprocess.run([str(written["submit.sh"]), "--wait"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert ran.returncode == 0 and "merge: job 42, finished" in ran.stdout, ran.stdout + ran.stderr
    assert "--wait" in logged(log)[1] and "--wait" not in logged(log)[0]
    assert not list(tmp_path.rglob("PWNED")) and not Path("PWNED").exists(), "a hostile name ran a command"
    # the #SBATCH lines carry nothing of the name but a cleaned job name
    directives = [line for line in written["grade.sbatch"].read_text().splitlines() if line.startswith("#SBATCH")]
    assert all("PWNED" not in line and "'" not in line for line in directives), directives


@pytest.mark.parametrize("value", ["gpu\n#SBATCH --uid=0", "a b", "x;id", "$(id)", ""])
def test_a_partition_or_account_that_could_add_a_directive_is_refused(tmp_path, value):
    plan = cluster.Plan("toy", tmp_path / "c.zip", 2, 1, 4, None, FIGURES)
    for option in ("partition", "account"):
        if value == "":
            continue  # an empty value means "the cluster's default": nothing written
        with pytest.raises(cluster.ClusterError, match="may hold only"):
            cluster.render_slurm(plan, tmp_path / "out", **{option: value})


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("image", "registry.example.edu/grader:fall; rm -rf /"),
        ("image", "x\nkind: Pod"),
        ("claim", "Course_Grading"),
        ("pull_secret", "secret\n  - name: other"),
        ("namespace", "-bad"),
    ],
)
def test_a_kubernetes_value_that_is_not_a_name_is_refused(tmp_path, option, value):
    plan = cluster.Plan("toy", tmp_path / "c.zip", 2, 1, 4, None, FIGURES)
    options = {"image": "registry.example.edu/grader:fall", option: value}
    with pytest.raises(cluster.ClusterError):
        cluster.kubernetes_objects(plan, **options)


def test_a_hostile_download_name_is_one_argument_of_the_pods_command_and_no_shell_reads_it(tmp_path):
    plan = cluster.Plan(HOSTILE, tmp_path / f"{HOSTILE}.zip", 2, 1, 4, None, FIGURES)
    objects = cluster.kubernetes_objects(plan, image="registry.example.edu/grader:fall")
    container = objects["grade-job.yaml"]["spec"]["template"]["spec"]["containers"][0]
    assert container["command"] == ["course"], "no shell: the arguments reach course as they are"
    assert container["args"][:3] == ["grade", HOSTILE, f"/autograder/input/{HOSTILE}.zip"]
    name = objects["grade-job.yaml"]["metadata"]["name"]
    assert cluster.KUBERNETES_NAME.fullmatch(name), name


def test_the_requests_follow_the_sizing_rule():
    # 800 students, 8 shards of 4 workers: about 100 a shard, a quarter more for an uneven split
    plan = cluster.Plan("toy", Path("c.zip"), 8, 4, 800, None, FIGURES)
    assert plan.per_shard == 125
    request = plan.request()
    assert request.cpus == 4
    assert request.memory_mb >= 4 * 700 + sizing.SUPERVISOR_MB, "the workers' measured memory and the supervisor"
    assert request.minutes >= 125 * 3.0 / 4 / 60 * sizing.TIME_MARGIN, "the measured CPU time with its margin"
    estimate = sizing.estimate(800, 16, FIGURES)
    assert round(estimate.minutes, 1) == 2.5 and round(estimate.memory_gb, 2) == 11.71
    assert "about 2 min and 11.7 GB" in estimate.line(FIGURES)


def test_the_sizing_figures_are_the_largest_measured_class(tmp_path):
    rows = [
        {"students": 8, "workers": 2, "assignment": "toy", "cpu_per_submission_s": 9.0, "pss_per_worker_mb": 600},
        {"students": 8, "workers": 1, "assignment": "toy", "cpu_per_submission_s": 9.5, "pss_per_worker_mb": 990},
        {"students": 64, "workers": 2, "assignment": "toy", "cpu_per_submission_s": 3.5, "pss_per_worker_mb": 650},
        {"students": 64, "workers": 2, "assignment": "toy", "cpu_per_submission_s": 3.1, "pss_per_worker_mb": 700},
        {"students": 1, "assignment": "toy", "wall_s": 9.0},  # a one-submission row: not a class
    ]
    path = tmp_path / "sizes.json"
    path.write_text(json.dumps(rows))
    figures = sizing.figures(path)
    # the largest class's worst CPU figure; the memory per worker where several workers shared the zygote
    assert (figures.students, figures.cpu_s_per_submission, figures.mb_per_worker) == (64, 3.5, 700)
    assert sizing.figures(tmp_path / "absent.json") is None


def test_course_cluster_renders_both_engines_and_says_what_each_shard_asks_for(tmp_path, capsys):
    download = tmp_path / "class"
    download.mkdir()
    for n in range(5):
        (download / f"student{n}.ipynb").write_text("{}")
    assert (
        course(["cluster", "slurm", "transfer_lm", str(download), "--shards", "2", "--out", str(tmp_path / "s")]) == 0
    )
    printed = capsys.readouterr().out
    assert "slurm: 5 student(s) in 2 shard(s)" in printed and "each shard asks for 2 core(s)" in printed, printed
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["grade.sbatch", "merge.sbatch", "submit.sh"]
    assert (
        course(["cluster", "kubernetes", "transfer_lm", str(download), "--shards", "2", "--out", str(tmp_path / "k")])
        == 0
    )
    assert sorted(p.name for p in (tmp_path / "k").iterdir()) == [
        "grade-job.yaml",
        "merge-job.yaml",
        "pvc.yaml",
        "submit.sh",
    ]
    assert (
        course(
            ["cluster", "kubernetes", "transfer_lm", str(download), "--shards", "2", "--claim", "Bad_Name"]
            + ["--out", str(tmp_path / "k2")]
        )
        == 2
    )
    assert "is not a Kubernetes name" in capsys.readouterr().err
