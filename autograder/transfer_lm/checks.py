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


def key_problems(state, expected_keys) -> str:
    """'' when the names match; otherwise the mismatch in the grader's words: which of the expected names
    are missing (the grader's names, up to four) and how many others there are. The other names are the
    kernel's, so they are counted, never quoted (issue #43)."""
    if not isinstance(state, dict):
        return "the grader could not read the state dict's names"
    keys, expected = set(state), set(expected_keys)
    if keys == expected:
        return ""
    missing, unexpected = sorted(expected - keys), len(keys - expected)
    parts = []
    if missing:
        parts.append(f"{len(missing)} missing ({', '.join(missing[:4])}{', ...' if len(missing) > 4 else ''})")
    if unexpected:
        parts.append(f"{unexpected} name(s) the skeleton's model does not have")
    return "; ".join(parts)
