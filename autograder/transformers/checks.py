"""Snippets that tests of several questions run in the student's namespace."""

# Loads the grader's state dict into the object named ``name`` strictly and sets ``loaded``; a model whose
# attribute names or shapes differ from the skeleton's gets ``loaded = False`` instead of an exception.
LOAD = (
    "try:\n"
    "    {name}.load_state_dict(state)\n"
    "    loaded = True\n"
    "except (RuntimeError, KeyError, AttributeError, TypeError):\n"
    "    loaded = False\n"
)
