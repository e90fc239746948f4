"""Copies the values tensor by tensor into the classifier's own base tensors (copy_ under no_grad)
instead of calling load_state_dict.

question: load_pretrained_base_tests
replaces: load_pretrained_base
"""


def load_pretrained_base(model, lm_state_dict):
    with torch.no_grad():
        for name, tensor in model.base.state_dict(keep_vars=True).items():
            tensor.copy_(lm_state_dict["base." + name])
    return model
