"""`course cluster kubernetes` (assignments/platforms/cluster.py): the rendered claim, Indexed Job and merge Job validated
offline against the Kubernetes API's schema, and their pods against the Pod Security Standards' rules.

The schema: tests/fixtures/kubernetes/v1.30.0.json and v1.37.0.json, the definitions a batch/v1 Job and a v1
PersistentVolumeClaim reach in the strict schema generated from Kubernetes' published OpenAPI specification
(how they were cut, and from what: tests/fixtures/kubernetes/vendor_schema.py and each file's $comment).
Strict: every object is closed, so a misspelt or misplaced field fails, as the API server's strict field
validation (kubectl's default) refuses it; a wrong type or a missing required field fails too.

Pod Security (https://kubernetes.io/docs/concepts/security/pod-security-standards/): the rules of the
baseline and restricted levels that a manifest shows (what a namespace's admission checks), written out in
``violations`` below. The default rendering (`--pod-security baseline`) meets baseline and breaks restricted
on exactly two rules: it runs as root and adds capabilities, which the sandbox's fallback needs to give each
kernel a uid of its own (docs/security.md). `--pod-security restricted` meets restricted; what it gives up is
said in docs/how-to/large-class.md.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from assignments import sizing
from assignments.platforms import cluster

SCHEMAS = Path(__file__).parents[1] / "fixtures" / "kubernetes"
RELEASES = ("v1.30.0", "v1.37.0")
FIGURES = sizing.Figures(cpu_s_per_submission=3.0, mb_per_worker=700, students=256, assignment="toy", machine="m")


def validator(release: str, kind: str) -> jsonschema.Draft7Validator:
    schema = json.loads((SCHEMAS / f"{release}.json").read_text())
    root = {"$ref": f"#/$defs/{schema['kinds'][kind]}", "$defs": schema["$defs"]}
    return jsonschema.Draft7Validator(root)


def problems(release: str, manifest: dict) -> list[str]:
    found = validator(release, manifest["kind"]).iter_errors(manifest)
    return sorted(f"{'/'.join(map(str, error.absolute_path))}: {error.message}" for error in found)


def rendered(tmp_path: Path, level: str = "baseline") -> dict[str, dict]:
    """The files `course cluster kubernetes` writes, read back as YAML."""
    plan = cluster.Plan("transfer_lm", tmp_path / "canvas.zip", 8, 4, 800, None, FIGURES)
    written = cluster.render_kubernetes(
        plan, tmp_path / level, image="registry.example.edu/course/grader:fall", pod_security=level
    )
    return {name: yaml.safe_load(path.read_text()) for name, path in written.items() if name.endswith(".yaml")}


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("level", cluster.POD_SECURITY)
def test_the_rendered_manifests_are_valid_objects_of_the_kubernetes_api(tmp_path, release, level):
    for name, manifest in rendered(tmp_path, level).items():
        assert problems(release, manifest) == [], f"{name} is not a valid {manifest['kind']} of Kubernetes {release}"


@pytest.mark.parametrize(
    ("where", "change"),
    [
        ("a misspelt field", lambda job: job["spec"]["template"]["spec"]["containers"][0].update(resource={})),
        ("a field in the wrong object", lambda job: job["spec"].update(imagePullSecrets=[{"name": "x"}])),
        ("a number as a string", lambda job: job["spec"].update(completions="8")),
        ("a required field missing", lambda job: job["spec"]["template"]["spec"]["containers"][0].pop("name")),
        ("a list as one object", lambda job: job["spec"]["template"]["spec"].update(volumes={"name": "grading"})),
    ],
)
def test_a_manifest_with_a_wrong_field_fails_validation(tmp_path, where, change):
    job = copy.deepcopy(rendered(tmp_path)["grade-job.yaml"])
    change(job)
    for release in RELEASES:
        assert problems(release, job), f"{where} passed Kubernetes {release}'s schema"


# --- Pod Security Standards, as a namespace's admission checks them ----------------------------------------

BASELINE_CAPABILITIES = {
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
}
RESTRICTED_VOLUMES = {
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
}


def violations(pod: dict, level: str) -> set[str]:
    """The rules of ``level`` (baseline, or restricted, which includes baseline) that ``pod`` breaks."""
    broken = set()
    spec = pod["spec"]
    pod_context = spec.get("securityContext", {})
    containers = spec.get("containers", []) + spec.get("initContainers", [])
    # baseline
    if any(spec.get(key) for key in ("hostNetwork", "hostPID", "hostIPC")):
        broken.add("host namespaces")
    if any(c.get("securityContext", {}).get("privileged") for c in containers):
        broken.add("privileged containers")
    for c in containers:
        added = set(c.get("securityContext", {}).get("capabilities", {}).get("add", []))
        if added - BASELINE_CAPABILITIES:
            broken.add("capabilities beyond baseline's")
        if any(port.get("hostPort") for port in c.get("ports", [])):
            broken.add("host ports")
        if c.get("securityContext", {}).get("procMount", "Default") != "Default":
            broken.add("/proc mount type")
    if any("hostPath" in volume for volume in spec.get("volumes", [])):
        broken.add("hostPath volumes")
    contexts = [pod_context] + [c.get("securityContext", {}) for c in containers]
    if any(ctx.get("seccompProfile", {}).get("type") == "Unconfined" for ctx in contexts):
        broken.add("seccomp")
    if any("seLinuxOptions" in ctx and ctx["seLinuxOptions"].get("type") not in (None, "") for ctx in contexts):
        broken.add("SELinux")
    if level == "baseline":
        return broken
    # restricted
    if any(not set(volume) - {"name"} <= RESTRICTED_VOLUMES for volume in spec.get("volumes", [])):
        broken.add("volume types")
    if any(c.get("securityContext", {}).get("allowPrivilegeEscalation") is not False for c in containers):
        broken.add("privilege escalation")
    non_root = pod_context.get("runAsNonRoot") is True
    if not all(c.get("securityContext", {}).get("runAsNonRoot", non_root) is True for c in containers):
        broken.add("running as non-root")
    if any(ctx.get("runAsUser") == 0 for ctx in contexts):
        broken.add("running as non-root user")
    for c in containers:
        profile = c.get("securityContext", {}).get("seccompProfile") or pod_context.get("seccompProfile") or {}
        if profile.get("type") not in ("RuntimeDefault", "Localhost"):
            broken.add("seccomp")
        capabilities = c.get("securityContext", {}).get("capabilities", {})
        if "ALL" not in capabilities.get("drop", []) or set(capabilities.get("add", [])) - {"NET_BIND_SERVICE"}:
            broken.add("capabilities")
    return broken


def pods(manifests: dict[str, dict]) -> dict[str, dict]:
    return {name: m["spec"]["template"] for name, m in manifests.items() if m["kind"] == "Job"}


def test_the_default_pods_meet_baseline_and_break_restricted_only_where_the_sandbox_needs_root(tmp_path):
    for name, pod in pods(rendered(tmp_path, "baseline")).items():
        assert violations(pod, "baseline") == set(), f"{name} breaks the baseline level"
        assert violations(pod, "restricted") == {"running as non-root", "running as non-root user", "capabilities"}, (
            f"{name}: restricted should refuse it only for root and the capabilities the sandbox's fallback uses"
        )


def test_the_restricted_rendering_meets_the_restricted_level_and_grades_one_submission_at_a_time(tmp_path):
    manifests = rendered(tmp_path, "restricted")
    for name, pod in pods(manifests).items():
        assert violations(pod, "restricted") == set(), f"{name} breaks the restricted level"
    args = manifests["grade-job.yaml"]["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[args.index("--workers") + 1] == "1", "without other uids, kernels share one: one at a time"


def test_a_pod_that_breaks_a_rule_is_caught(tmp_path):
    pod = copy.deepcopy(pods(rendered(tmp_path, "restricted"))["grade-job.yaml"])
    pod["spec"]["containers"][0]["securityContext"]["privileged"] = True
    pod["spec"]["volumes"].append({"name": "host", "hostPath": {"path": "/"}})
    assert {"privileged containers", "hostPath volumes", "volume types"} <= violations(pod, "restricted")


def test_the_jobs_shard_by_completion_index_share_one_read_write_many_claim_and_merge_every_shard(tmp_path):
    manifests = rendered(tmp_path)
    grade, merge, claim = manifests["grade-job.yaml"], manifests["merge-job.yaml"], manifests["pvc.yaml"]
    assert grade["spec"]["completionMode"] == "Indexed" and grade["spec"]["completions"] == 8
    container = grade["spec"]["template"]["spec"]["containers"][0]
    shard = {e["name"]: e for e in container["env"]}["SHARD"]
    assert shard["valueFrom"]["fieldRef"]["fieldPath"].endswith("['batch.kubernetes.io/job-completion-index']")
    assert "$(SHARD)/8" in container["args"] and "/runs/shard-$(SHARD)" in container["args"]
    merge_args = merge["spec"]["template"]["spec"]["containers"][0]["args"]
    assert [a for a in merge_args if a.startswith("/runs/shard-")] == [f"/runs/shard-{i}" for i in range(8)]
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]
    for job in (grade, merge):
        spec = job["spec"]["template"]["spec"]
        assert spec["imagePullSecrets"] == [{"name": "registry-credentials"}]
        assert {v["persistentVolumeClaim"]["claimName"] for v in spec["volumes"]} == {claim["metadata"]["name"]}
    requests = container["resources"]["requests"]
    expected = sizing.request(cluster.Plan("t", Path("c"), 8, 4, 800, None, FIGURES).per_shard, 4, FIGURES)
    assert requests == {"cpu": "4", "memory": f"{expected.memory_mb}Mi"}
