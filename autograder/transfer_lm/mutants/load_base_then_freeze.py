"""Loads the base and then freezes it (requires_grad_(False)) "to keep what pre-training learned", so
fine-tuning trains the new head alone although the whole model is meant to be fine-tuned.

question: load_pretrained_base_tests
replaces: load_pretrained_base
"""


def load_pretrained_base(model, lm_state_dict):
    prefix = "base."
    model.base.load_state_dict({name[len(prefix):]: tensor for name, tensor in lm_state_dict.items()
                                if name.startswith(prefix)})
    model.base.requires_grad_(False)
    return model
