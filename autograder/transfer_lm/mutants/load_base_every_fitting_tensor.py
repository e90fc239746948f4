"""Loads every tensor of the language model whose name and shape fit the classifier (filter by shape,
then load_state_dict(..., strict=False)), the usual recipe for a partial load: when the classifier has
as many classes as the vocabulary has words, the language model's head fits too and replaces the fresh
one.

question: load_pretrained_base_tests
replaces: load_pretrained_base
"""


def load_pretrained_base(model, lm_state_dict):
    own = model.state_dict()
    fitting = {name: t for name, t in lm_state_dict.items() if name in own and own[name].shape == t.shape}
    model.load_state_dict(fitting, strict=False)
    return model
