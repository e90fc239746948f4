"""Passes assign=True to load_state_dict, as PyTorch's documentation does for loading into a model built
on the meta device: the classifier's base then takes the language model's tensors themselves, on the
language model's device (the CPU) and sharing their storage, instead of copying the values into its own
tensors where the classifier lives.

question: load_pretrained_base_tests
replaces: load_pretrained_base
"""


def load_pretrained_base(model, lm_state_dict):
    base_state = {name[len("base.") :]: t for name, t in lm_state_dict.items() if name.startswith("base.")}
    model.base.load_state_dict(base_state, assign=True)
    return model
