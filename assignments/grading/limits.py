"""What one submission may use: time, memory, output, restarts. A module of its own, importing nothing,
so that a batch's supervising process can read the limits without importing the grader's modules (and
torch with them: about 190 MB and a second of CPU it has no use for)."""

from __future__ import annotations

from dataclasses import dataclass

MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Everything one submission may use. Tests shrink these to keep hostile fixtures fast."""

    cell_timeout: float = 60.0          # one notebook cell
    call_timeout: float = 60.0          # one hidden-test snippet (a test may ask for less, never more)
    total_timeout: float = 300.0        # the whole submission: notebook, restarts and every test
    startup_timeout: float = 60.0       # kernel start until it answers
    interrupt_grace: float = 2.0        # after SIGINT, how long before the kernel is killed
    memory_bytes: int = 2 * 1024 ** 3   # RSS of the kernel's whole process tree
    max_result_bytes: int = 256 * MB    # one snippet's result file
    max_output_chars: int = 10_000      # printed output kept per cell
    max_restarts: int = 3
    scratch_bytes: int = 1024 * MB      # everything the kernel writes into its scratch folder
    scratch_files: int = 20_000         # files and folders in scratch: empty files cost inodes, not bytes
    max_reply_items: int = 1_000_000     # values (tensors, numbers, strings) in one reply
    max_reply_depth: int = 32           # nesting of lists/tuples/dicts in one reply
    # Characters in one string of a reply (dict keys included). Tests ask for names (parameters, module
    # types); a longer string is a reply carrying text out (a stand-in it received), never an answer.
    max_reply_string_chars: int = 200
    threads: int = 1                    # torch/OpenMP threads in the kernel (workers run in parallel)
    isolate: bool = True                # namespaces; False only for debugging
