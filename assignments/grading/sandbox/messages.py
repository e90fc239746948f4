"""Talking to the sandboxed kernel over Jupyter's messaging protocol: connect, wait until it answers,
execute code within a CPU-time budget and a wall-clock ceiling. Nothing the kernel sends is trusted:
output is capped and only kept for reports, error names and messages pass through
``handle.untrusted_text``."""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from dataclasses import dataclass

from assignments.grading.testkit.kernel_text import untrusted_text

MB = 1024 * 1024


@dataclass
class CellOutcome:
    status: str  # "ok" | "error" | "timeout" | "died"
    error: str = ""  # "Name: message" for status error
    output: str = ""  # printed output, capped
    truncated: bool = False
    clock: str = ""  # for status timeout: "cpu" (its CPU budget ran out) or "wall" (its ceiling)
    cpu_s: float = 0.0  # CPU seconds the kernel's processes used meanwhile (0 where not measured)
    wall_s: float = 0.0  # wall seconds it took


@dataclass(frozen=True)
class CpuBudget:
    """CPU seconds one execution may use, read from ``clock`` (the kernel's processes' CPU seconds)."""

    seconds: float
    clock: Callable[[], float]


def connect(connection: dict):
    """(zmq context, started BlockingKernelClient) for a kernel's connection info; no heartbeat."""
    import zmq
    from jupyter_client import BlockingKernelClient

    context = zmq.Context()
    try:
        context.setsockopt(zmq.MAXMSGSIZE, 64 * MB)  # a giant print cannot flood the grader
        context.setsockopt(zmq.LINGER, 0)
        client = BlockingKernelClient(context=context)
        client.load_connection_info(connection)
        client.start_channels(hb=False)
    except BaseException:
        context.destroy(linger=0)  # never left to the garbage collector, whose term() can block for ever
        raise
    return context, client


def wait_for_ready(client, budget: float, alive: Callable[[], bool]) -> bool:
    """kernel_info until the kernel answers (the heartbeat lags behind startup); False if it never did."""
    end = time.monotonic() + budget
    while time.monotonic() < end:
        if not alive():
            return False
        msg_id = client.kernel_info()
        poll_end = min(end, time.monotonic() + 1.0)
        while time.monotonic() < poll_end:
            try:
                msg = client.get_shell_msg(timeout=0.1)
            except queue.Empty:
                if not alive():
                    return False
                continue
            if msg.get("parent_header", {}).get("msg_id") == msg_id:
                # iopub is connected once it delivers: drop what it has so far, up to this request's
                # idle status (or 0.2 s of silence, if it joined after that status was sent)
                while True:
                    try:
                        note = client.get_iopub_msg(timeout=0.2)
                    except queue.Empty:
                        return True
                    if _is_idle_for(note, msg_id):
                        return True
    return False


def _is_idle_for(msg: dict, msg_id: str) -> bool:
    """Whether ``msg`` is the kernel's "idle" status after the request ``msg_id``: its last message."""
    return (
        msg.get("msg_type") == "status"
        and msg.get("parent_header", {}).get("msg_id") == msg_id
        and msg.get("content", {}).get("execution_state") == "idle"
    )


def execute(
    client,
    code: str,
    timeout: float,
    alive: Callable[[], bool],
    max_output_chars: int = 0,
    keep_output: bool = False,
    cpu: CpuBudget | None = None,
) -> CellOutcome:
    """Run ``code`` in the kernel and wait for its reply, the deadline (``timeout`` seconds from now), or
    the kernel's death; with ``cpu``, also until the kernel has used ``cpu.seconds`` of CPU time, and the
    deadline is then a ceiling for a kernel that waits instead of computing. With ``keep_output``, printed
    text up to ``max_output_chars`` is kept."""
    began, cpu_began = time.monotonic(), cpu.clock() if cpu else 0.0
    msg_id = client.execute(code, silent=False, store_history=False, allow_stdin=False, stop_on_error=False)
    end = began + max(0.0, timeout)
    outcome = CellOutcome("ok")
    pieces: list[str] = []
    kept = 0
    reply = None
    idle_by = None
    while True:
        # Once the reply is in, only iopub's idle status is awaited, so wait on iopub (not on the shell
        # channel, which has nothing more to say): a snippet then costs no idle poll interval.
        wait = 0.05 if reply is not None else 0.0
        drain_until = time.monotonic() + 0.1  # a flood of output must not starve the checks below
        while time.monotonic() < drain_until:  # drain iopub: outputs are capped, never trusted
            try:
                msg = client.get_iopub_msg(timeout=wait)
            except queue.Empty:
                break
            wait = 0.0
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg.get("msg_type"), msg.get("content", {})
            text = ""
            if kind == "stream":
                text = str(content.get("text", ""))
            elif kind in ("execute_result", "display_data"):
                text = str(content.get("data", {}).get("text/plain", ""))
            elif kind == "status" and content.get("execution_state") == "idle":
                idle_by = 0.0
            if text and keep_output:
                room = max_output_chars - kept
                if len(text) > room:
                    outcome.truncated = True
                if room > 0:
                    pieces.append(text[:room])
                    kept += min(room, len(text))
        if reply is not None and (idle_by == 0.0 or time.monotonic() > idle_by):
            break
        if not alive():
            outcome.status = "died"
            break
        if time.monotonic() > end:
            outcome.status, outcome.clock = "timeout", "wall"
            break
        if cpu and cpu.clock() - cpu_began > cpu.seconds:
            outcome.status, outcome.clock = "timeout", "cpu"
            break
        if reply is not None:
            continue
        try:
            msg = client.get_shell_msg(timeout=0.05)
        except queue.Empty:
            continue
        if msg.get("parent_header", {}).get("msg_id") == msg_id:
            reply = msg.get("content", {})
            idle_by = time.monotonic() + 1.0 if idle_by is None else idle_by
    outcome.output = "".join(pieces)
    outcome.wall_s = time.monotonic() - began
    outcome.cpu_s = cpu.clock() - cpu_began if cpu else 0.0
    if reply is not None and reply.get("status") == "error":
        outcome.status = "error"
        outcome.error = untrusted_text(reply.get("ename", "Error"), reply.get("evalue", ""))
    return outcome


__all__ = ["CellOutcome", "CpuBudget", "connect", "wait_for_ready", "execute"]
