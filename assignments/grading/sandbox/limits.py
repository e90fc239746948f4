"""What one submission may use: CPU time (with wall-clock ceilings), memory, output, restarts. A module of
its own, importing nothing, so that a batch's supervising process can read the limits without importing
the grader's modules (and torch with them: about 190 MB and a second of CPU it has no use for)."""

from __future__ import annotations

from dataclasses import dataclass

MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Everything one submission may use. Tests shrink these to keep hostile fixtures fast."""

    # Time budgets are CPU seconds (user + system) of the kernel's processes, so a host loaded by other work
    # slows a submission down without costing it points. Each has a wall-clock ceiling beside it, for a
    # kernel that sleeps or blocks instead of computing.
    cell_timeout: float = 60.0  # one notebook cell
    call_timeout: float = 60.0  # one hidden-test snippet (a test may ask for less, never more)
    total_timeout: float = 300.0  # the whole submission: notebook, restarts and every test
    # A cell's or call's wall-clock ceiling is this many times its CPU budget: a kernel that gets a
    # quarter of a core still finishes what fits in its budget.
    wall_factor: float = 4.0
    # The submission's wall-clock ceiling (from its first kernel's start) is this many times
    # total_timeout: 450 s by default, which leaves the grader's own start and tests room within
    # Gradescope's 10-minute timeout and within batch.GraderBudget.wall_seconds.
    total_wall_factor: float = 1.5
    startup_timeout: float = 60.0  # kernel start until it answers (wall time: the grader's own work)
    interrupt_grace: float = 2.0  # after SIGINT, how long before the kernel is killed
    # the kernel's whole process tree (resident memory) and its files in temporary folders (tmpfs)
    memory_bytes: int = 2 * 1024**3
    max_result_bytes: int = 256 * MB  # one snippet's result file
    max_output_chars: int = 10_000  # printed output kept per cell
    max_restarts: int = 3
    scratch_bytes: int = 1024 * MB  # everything the kernel writes into its scratch folder
    scratch_files: int = 20_000  # files and folders in scratch: empty files cost inodes, not bytes
    max_reply_items: int = 1_000_000  # values (tensors, numbers, strings) in one reply
    max_reply_depth: int = 32  # nesting of lists/tuples/dicts in one reply
    # Characters in one string of a reply (dict keys included). Tests ask for names (parameters, module
    # types); a longer string is a reply carrying text out (a stand-in it received), never an answer.
    max_reply_string_chars: int = 200
    threads: int = 1  # torch/OpenMP threads in the kernel (workers run in parallel)
    isolate: bool = True  # namespaces; False only for debugging

    @property
    def total_wall_timeout(self) -> float:
        return self.total_timeout * self.total_wall_factor

    @property
    def tmp_bytes(self) -> int:
        """Room in the kernel's private temporary folders (``/tmp``, ``/var/tmp``, ``/dev/shm``, one tmpfs
        for all three): a quarter of ``memory_bytes`` (at least 64 MB, and never more than all of it).
        A tmpfs holds its files in memory, so they count against ``memory_bytes`` with the kernel's
        resident memory; this size only stops the files alone from growing past the budget."""
        return min(self.memory_bytes, max(64 * MB, self.memory_bytes // 4))
