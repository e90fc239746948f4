"""Snippets and checks that tests of several transfer_lm questions share (grader side only)."""

from __future__ import annotations

import textwrap


# Tiny models train fastest on one thread, and on a loaded machine several torch threads spinning against
# each other can make a 1 s training test take a minute. Training snippets and the grader's own training
# therefore run single-threaded; the previous setting is restored afterwards.
def single_threaded(code: str) -> str:
    """Wrap a snippet so that it runs with torch.set_num_threads(1) and restores the thread count."""
    return (
        "_threads_before = torch.get_num_threads()\n"
        "torch.set_num_threads(1)\n"
        "try:\n" + textwrap.indent(code, "    ") + "\n"
        "finally:\n"
        "    torch.set_num_threads(_threads_before)\n"
    )


def key_problems(state: dict, expected_keys) -> str:
    """'' when the names match; otherwise a short description of missing and unexpected names."""
    keys, expected = set(state), set(expected_keys)
    if keys == expected:
        return ""
    missing, unexpected = sorted(expected - keys), sorted(keys - expected)
    parts = []
    if missing:
        parts.append(f"missing {missing[:4]}{' ...' if len(missing) > 4 else ''}")
    if unexpected:
        parts.append(f"unexpected {unexpected[:4]}{' ...' if len(unexpected) > 4 else ''}")
    return "; ".join(parts)
