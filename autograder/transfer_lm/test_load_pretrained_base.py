"""load_pretrained_base_tests: the base is copied exactly, the new head is kept and has the right shape."""

import torch

from assignments.grading.testkit import behaviour, expect, expect_shape, question
from autograder.transfer_lm import stand_ins as reference
from autograder.transfer_lm.oracles import causal_mask, reference_model

STAND_INS = ("PositionalEncoding", "Model")
# (ntoken, nhead, nhid, nlayers, nclasses): each test loads a base of another size.
TWO_LAYERS, ONE_LAYER, SAME_SIZE_HEAD = (41, 2, 12, 2, 3), (23, 4, 8, 1, 2), (17, 2, 8, 1, 17)
HEAD = ("head.decoder.weight", "head.decoder.bias")
# After loading, one SGD step on the classifier (evaluation mode, so no randomness): the base must still
# learn (nothing frozen), and the language model's tensors must not move with it (copied, not shared).
SNIPPET = """
model = Model(ntoken, nhead, nhid, nlayers, nclasses, dropout=0.1)
model.load_state_dict(start)
load_pretrained_base(model, lm_state)
result = {'after': {name: tensor.clone() for name, tensor in model.state_dict().items()}}
model.eval()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model(src, mask, lengths).logsumexp(dim=-1).sum().backward()
optimizer.step()
result.update(stepped=model.state_dict(), lm_after=lm_state)
"""
SEQ = 6


def _batch(config):
    g = torch.Generator().manual_seed(41)
    return torch.randint(1, config[0], (4, SEQ), generator=g), torch.tensor([SEQ, 2, 5, 1])


def _reference_step(config, lm_state, start):
    """The base tensors after the same load and SGD step, taken here on the reference."""
    model = reference_model(*config, state=start)
    reference.load_pretrained_base(model, lm_state)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    src, lengths = _batch(config)
    model(src, causal_mask(SEQ), lengths).logsumexp(dim=-1).sum().backward()
    optimizer.step()
    return {name: tensor.detach() for name, tensor in model.state_dict().items() if name.startswith("base.")}


def _tensors(n):
    return "1 tensor" if n == 1 else f"{n} tensors"


def _lm_state(config):
    # A language model whose weights differ from any fresh initialization: seeded, then shifted.
    ntoken, nhead, nhid, nlayers, _ = config
    state = reference_model(ntoken, nhead, nhid, nlayers, ntoken, seed=21).state_dict()
    return {name: tensor + 0.25 if name.endswith("weight") else tensor.clone() for name, tensor in state.items()}


def _start_state(config):
    # The classifier's weights before loading, chosen by the grader (so "the head was kept" is compared with
    # values the grader knows, never with a "before" the kernel reports).
    state = reference_model(*config, seed=22).state_dict()
    return {name: tensor - 0.5 if name.endswith("weight") else tensor + 0.5 for name, tensor in state.items()}


def _run(student, config):
    lm_state, start = _lm_state(config), _start_state(config)
    sent = {name: tensor.clone() for name, tensor in lm_state.items()}
    src, lengths = _batch(config)
    ntoken, nhead, nhid, nlayers, nclasses = config
    out = student.run(
        SNIPPET,
        stand_ins=STAND_INS,
        ntoken=ntoken,
        nhead=nhead,
        nhid=nhid,
        nlayers=nlayers,
        nclasses=nclasses,
        lm_state=sent,
        start=start,
        src=src,
        lengths=lengths,
        mask=causal_mask(SEQ),
    )
    return lm_state, start, out


@question("load_pretrained_base_tests")
@behaviour(
    "load_pretrained_base", "every base tensor copied, nothing re-initialized", mutant="reinit_base_after_loading"
)
@behaviour("load_pretrained_base", "the base stays trainable", mutant="load_base_then_freeze")
@behaviour(
    "load_pretrained_base",
    "randomness: it draws nothing, so no base tensor is re-initialized after the copy",
    mutant="reinit_base_after_loading",
    kind="randomness",
)
@behaviour(
    "load_pretrained_base",
    "one SGD step after loading checked to 0.1% of each base tensor's own movement (the step's effect)",
    mutant="load_base_then_freeze",
    kind="step-tolerance",
)
def test_every_base_tensor_copied(student):
    # Tolerance from the size of the effect: the SGD step (lr 0.1) moves each base parameter tensor of the
    # reference by 0.0095 to 0.32 (its largest entry), and each is compared to 0.1% of its own movement (plus
    # 1e-7), far above float32 noise and far below the step; the positional table, a buffer, must not move.
    lm_state, _, out = _run(student, TWO_LAYERS)
    after = out["after"]
    base_names = [name for name in lm_state if name.startswith("base.")]
    differing = [name for name in base_names if name not in after or not torch.equal(after[name], lm_state[name])]
    expect(
        not differing,
        f"{len(differing)} of {len(base_names)} base tensors differ from the language model's "
        f"after load_pretrained_base (for example {differing[:2]}); every base. tensor must be "
        f"copied and nothing may re-initialize them afterwards",
    )
    expected = _reference_step(TWO_LAYERS, lm_state, _start_state(TWO_LAYERS))
    stepped = out["stepped"]
    off = [
        name
        for name, tensor in expected.items()
        if name not in stepped
        or (stepped[name].float() - tensor).abs().max().item()
        > 1e-3 * (tensor - lm_state[name]).abs().max().item() + 1e-7
    ]
    expect(
        not off,
        f"after load_pretrained_base one SGD step should update the base as it updates the "
        f"reference's, but {len(off)} of its {_tensors(len(expected))} end elsewhere (by more than 0.1% of the "
        f"step): leave every parameter trainable (the whole model is fine-tuned)",
    )


@question("load_pretrained_base_tests")
@behaviour(
    "load_pretrained_base",
    "values copied, not shared: training leaves the language model's tensors alone",
    mutant="load_base_shares_tensors",
)
@behaviour(
    "load_pretrained_base",
    "state across calls: the language model's tensors stay as they were while the classifier trains later",
    mutant="load_base_shares_tensors",
    kind="state",
)
@behaviour(
    "load_pretrained_base",
    "values copied, not taken over: load_state_dict(..., assign=True) shares the language model's storage",
    mutant="load_base_assign",
)
@behaviour(
    "load_pretrained_base",
    "the new head left exactly as it was (no re-initialization after loading)",
    mutant="reinit_base_after_loading",
)
def test_head_kept_new_and_language_model_untouched(student):
    # The reported lm_after is compared with the grader's own copy of the language model: a kernel that
    # forges it hides only an in-place modification of its own copy, which no other grade depends on.
    lm_state, before, out = _run(student, ONE_LAYER)
    after = out["after"]
    _, _, nhid, _, nclasses = ONE_LAYER
    weight = expect_shape(after.get("head.decoder.weight"), (nclasses, nhid), "the classifier's head.decoder.weight")
    expect_shape(after.get("head.decoder.bias"), (nclasses,), "the classifier's head.decoder.bias")
    expect(
        torch.equal(weight, before["head.decoder.weight"])
        and torch.equal(after["head.decoder.bias"], before["head.decoder.bias"]),
        "load_pretrained_base changed the new head; it must leave the freshly initialized head as it was",
    )
    changed = [name for name, tensor in lm_state.items() if not torch.equal(out["lm_after"][name], tensor)]
    expect(
        not changed,
        f"the language model's state dict changed ({_tensors(len(changed))}, for example {changed[:2]}) "
        f"during load_pretrained_base or one training step after it: copy the values into the "
        f"classifier instead of sharing the language model's tensors",
    )


@question("load_pretrained_base_tests")
@behaviour(
    "load_pretrained_base",
    "degenerate: a head that fits the language model's (nclasses = ntoken) is still left as it was",
    mutant="load_base_every_fitting_tensor",
    kind="degenerate",
)
@behaviour(
    "load_pretrained_base",
    "every base tensor copied when the head fits too, nothing re-initialized",
    mutant="reinit_base_after_loading",
)
def test_head_kept_when_it_fits_the_language_models(student):
    # A classifier with as many classes as the vocabulary has words: its head has the language model's head's
    # shape, so only the names tell the base from the head.
    lm_state, before, out = _run(student, SAME_SIZE_HEAD)
    after = out["after"]
    base_names = [name for name in lm_state if name.startswith("base.")]
    differing = [name for name in base_names if name not in after or not torch.equal(after[name], lm_state[name])]
    expect(not differing, f"{len(differing)} of {len(base_names)} base tensors were not copied from the language model")
    expect(
        all(name in after and torch.equal(after[name], before[name]) for name in HEAD),
        "load_pretrained_base replaced the classifier's head with the language model's when both have the same "
        "shape (a classifier with as many classes as the vocabulary has words): copy the base. tensors only, "
        "whatever the head's shape",
    )


@question("load_pretrained_base_tests")
@behaviour(
    "load_pretrained_base",
    "device: the base's tensors stay on the classifier's device, whatever device the state dict is on",
    mutant="load_base_assign",
    kind="device",
)
@behaviour(
    "load_pretrained_base",
    "device: pointing the base's tensors at the state dict's (tensor.data = ...) fails across devices",
    mutant="load_base_shares_tensors",
)
def test_base_stays_on_the_classifiers_device(student):
    # PyTorch's 'meta' device stands for a GPU (grading has none): the classifier is built there and the language
    # model's state dict, as the notebook keeps it, is on the CPU. Copying values into the classifier's own
    # tensors leaves them where they are (on 'meta' the copy holds no data, and PyTorch warns that it is a
    # no-op); taking the state dict's tensors themselves moves them to the CPU.
    ntoken, nhead, nhid, nlayers, nclasses = ONE_LAYER
    out = student.run(
        "import warnings\n"
        "model = Model(ntoken, nhead, nhid, nlayers, nclasses, dropout=0.1).to('meta')\n"
        "try:\n"
        "    with warnings.catch_warnings():\n"
        "        warnings.simplefilter('ignore')\n"
        "        load_pretrained_base(model, lm_state)\n"
        "    result = sorted({str(t.device) for t in model.state_dict().values()})\n"
        "except Exception:\n"
        "    result = None\n",
        stand_ins=STAND_INS,
        ntoken=ntoken,
        nhead=nhead,
        nhid=nhid,
        nlayers=nlayers,
        nclasses=nclasses,
        lm_state=_lm_state(ONE_LAYER),
    )
    expect(
        out == ["meta"],
        "with the classifier on the 'meta' device (a stand-in for a GPU) and the language model's state dict on "
        "the CPU, load_pretrained_base "
        + ("raised an error" if out is None else "left some of the classifier's tensors on another device")
        + ": copy the values into the classifier's own tensors (load_state_dict), which stay where the "
        "classifier is",
    )


OUT_OF_SCOPE = [
    # The kinds every definition answers for (autograder/README.md, Kinds every definition answers for).
    (
        "load_pretrained_base",
        "validation order",
        "It checks no argument itself and has no special case; a missing or extra base tensor is refused by load_state_dict's own strict check.",
        "validation-order",
    ),
    ("load_pretrained_base", "exact boundaries", "It compares nothing with a threshold.", "boundary"),
    ("load_pretrained_base", "a sort's ties", "It sorts and ranks nothing.", "ties"),
    (
        "load_pretrained_base",
        "hyper-parameters that are not whole numbers",
        "It takes no hyper-parameter: a model and a state dict.",
        "non-integer",
    ),
    ("load_pretrained_base", "a batch of one", "It takes no batch: a model and a state dict.", "batch-of-one"),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    (
        "load_pretrained_base",
        "model",
        "Model(41, 2, 12, 2, 3), Model(23, 4, 8, 1, 2) (also on the meta device), Model(17, 2, 8, 1, 17)",
        None,
    ),
    (
        "load_pretrained_base",
        "lm_state_dict",
        "Model(41, 2, 12, 2, 41)'s, Model(23, 4, 8, 1, 23)'s, Model(17, 2, 8, 1, 17)'s, all on the CPU",
        None,
    ),
]
