"""Running a student's cells in an isolated kernel: its limits, the process (namespaces, a uid of its
own, a cgroup, rlimits), its messages, the snippet protocol hidden tests use and the decoding of its
replies, its scratch folder, and warm kernels forked for a batch. ``programs/`` holds the scripts that
run as programs (the launcher and the zygote), apart from the modules the grader imports."""

from assignments.grading.public import public_names

PUBLIC = {
    "Limits": "limits",
    "Sandbox": "session",
    "KernelHandle": "snippets",
    **dict.fromkeys(["NO_NAMESPACES_ENV", "namespaces_available", "kernel_env"], "process"),
    "decode_reply": "reply",
}
__all__ = sorted(PUBLIC)
__getattr__ = public_names(__name__, PUBLIC)
