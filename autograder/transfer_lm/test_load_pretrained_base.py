"""load_pretrained_base_tests: the base is copied exactly, the new head is kept and has the right shape."""

import torch

from assignments.grading.checks import expect, expect_shape, question
from autograder.transfer_lm.synthetic import reference_model

STAND_INS = ("PositionalEncoding", "Model")
NTOKEN, NHEAD, NHID, NLAYERS, NCLASSES = 41, 2, 12, 2, 3
SNIPPET = """
model = Model(ntoken, nhead, nhid, nlayers, nclasses, dropout=0.1)
model.load_state_dict(start)
load_pretrained_base(model, lm_state)
result = {'after': model.state_dict(), 'lm_after': lm_state}
"""


def _lm_state():
    # A language model whose weights differ from any fresh initialization: seeded, then shifted.
    state = reference_model(NTOKEN, NHEAD, NHID, NLAYERS, NTOKEN, seed=21).state_dict()
    return {name: tensor + 0.25 if name.endswith("weight") else tensor.clone() for name, tensor in state.items()}


def _start_state():
    # The classifier's weights before loading, chosen by the grader (so "the head was kept" is compared with
    # values the grader knows, never with a "before" the kernel reports).
    state = reference_model(NTOKEN, NHEAD, NHID, NLAYERS, NCLASSES, seed=22).state_dict()
    return {name: tensor - 0.5 if name.endswith("weight") else tensor + 0.5 for name, tensor in state.items()}


def _run(student):
    lm_state, start = _lm_state(), _start_state()
    sent = {name: tensor.clone() for name, tensor in lm_state.items()}
    out = student.run(SNIPPET, stand_ins=STAND_INS, ntoken=NTOKEN, nhead=NHEAD, nhid=NHID, nlayers=NLAYERS,
                      nclasses=NCLASSES, lm_state=sent, start=start)
    return lm_state, start, out


@question("load_pretrained_base_tests", points=1)
def test_every_base_tensor_copied(student):
    lm_state, _, out = _run(student)
    after = out["after"]
    base_names = [name for name in lm_state if name.startswith("base.")]
    differing = [name for name in base_names if name not in after or not torch.equal(after[name], lm_state[name])]
    expect(not differing, f"{len(differing)} of {len(base_names)} base tensors differ from the language model's "
                          f"after load_pretrained_base (for example {differing[:2]}); every base. tensor must be "
                          f"copied and nothing may re-initialize them afterwards")


@question("load_pretrained_base_tests", points=1)
def test_head_kept_new_and_language_model_untouched(student):
    # The reported lm_after is compared with the grader's own copy of the language model: a kernel that
    # forges it hides only an in-place modification of its own copy, which no other grade depends on.
    lm_state, before, out = _run(student)
    after = out["after"]
    weight = expect_shape(after.get("head.decoder.weight"), (NCLASSES, NHID), "the classifier's head.decoder.weight")
    expect_shape(after.get("head.decoder.bias"), (NCLASSES,), "the classifier's head.decoder.bias")
    expect(torch.equal(weight, before["head.decoder.weight"]) and
           torch.equal(after["head.decoder.bias"], before["head.decoder.bias"]),
           "load_pretrained_base changed the new head; it must leave the freshly initialized head as it was")
    changed = [name for name, tensor in lm_state.items() if not torch.equal(out["lm_after"][name], tensor)]
    expect(not changed, f"load_pretrained_base modified the language model's state dict ({changed[:2]})")
