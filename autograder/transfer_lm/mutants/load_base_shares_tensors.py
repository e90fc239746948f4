"""Points each base tensor at the language model's own storage (tensor.data = ...) instead of copying
the values: after loading everything matches, but fine-tuning the classifier then rewrites the language
model's state dict too.

question: load_pretrained_base_tests
replaces: load_pretrained_base
"""


def load_pretrained_base(model, lm_state_dict):
    for name, tensor in model.base.state_dict(keep_vars=True).items():
        tensor.data = lm_state_dict["base." + name]
    return model
