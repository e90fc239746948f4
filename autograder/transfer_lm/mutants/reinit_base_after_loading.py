"""Loads the base weights and then calls model.init_weights() "to make sure the new head starts
fresh", which also re-initializes the pre-trained embedding.

question: load_pretrained_base_tests
replaces: load_pretrained_base
"""


def load_pretrained_base(model, lm_state_dict):
    """Copy every `base.` tensor of a language model's state dict into `model` (a classifier).

    lm_state_dict comes from a Model whose head has ntoken outputs; `model` has the same base
    configuration but a head with nclasses outputs. After the call every tensor under model.base
    equals the language model's; model.head is left exactly as it was (freshly initialized). Do not
    modify lm_state_dict. Return the model.
    Our solution is about 4 lines.
    """
    prefix = "base."
    base_state = {name[len(prefix):]: tensor for name, tensor in lm_state_dict.items()
                  if name.startswith(prefix)}
    model.base.load_state_dict(base_state)   # strict: every base tensor must be there, and nothing else
    model.init_weights()
    return model
