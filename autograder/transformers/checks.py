"""Snippets that tests of several questions run in the student's namespace."""

# Loads the grader's state dict into the object named ``name`` and sets ``loaded``: True when every tensor of
# ``state`` went in by name and shape and every parameter of the student's module came from ``state``. A
# buffer the student registered (a stored scale, a causal mask, position ids) is allowed: the skeletons fix
# parameters, not buffers, so a strict load, which would miss the buffer in ``state``, is not used. A model
# whose parameter names or shapes differ from the skeleton's gets ``loaded = False`` instead of an exception.
LOAD = (
    "try:\n"
    "    _outcome = {name}.load_state_dict(state, strict=False)\n"
    "    loaded = not _outcome.unexpected_keys and all(_key in state for _key, _ in {name}.named_parameters())\n"
    "except (RuntimeError, KeyError, AttributeError, TypeError):\n"
    "    loaded = False\n"
)
