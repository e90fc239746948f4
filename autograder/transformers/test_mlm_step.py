"""Hidden tests: one masked-LM pre-training step (mlm_step), against the reference step."""

import torch

from assignments.grading.testkit import behaviour, expect, expect_close, question
from autograder.transformers.oracles import reference

MODEL = ("scaled_dot_product", "MultiHeadAttention", "TransformerBlock", "MiniBERT", "mask_inputs")


def mlm_tokens(seed, vocab, rows=16, cols=24, pad=0):
    """Token ids in [0, vocab) other than pad, each row padded with pad after a random length."""
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, vocab - 1, (rows, cols), generator=g)
    tokens = tokens + (tokens >= pad).long()  # every id but the pad id
    lengths = torch.randint(cols // 2, cols + 1, (rows,), generator=g)
    return tokens.masked_fill(torch.arange(cols)[None, :] >= lengths[:, None], pad)


@question("mlm_step_tests")
@behaviour("mlm_step", "gradient flow: backward before the step", mutant="mlm_missing_backward")
@behaviour("mlm_step", "reduction: mean over the selected tokens only", mutant="mlm_loss_summed")
@behaviour("mlm_step", "randomness: the generator passed on to mask_inputs", mutant="mlm_step_ignores_generator")
@behaviour("mlm_step", "pad_token_id passed on to mask_inputs and to the pad mask", mutant="mlm_step_pad_id_zero")
@behaviour(
    "mlm_step",
    "randomness: the masking draws from the generator passed in, not the global state",
    mutant="mlm_step_ignores_generator",
    kind="randomness",
)
@behaviour(
    "mlm_step",
    "returns the loss as a Python float, not a tensor holding the step's graph past the call (#44 item 4)",
    mutant="mlm_step_returns_loss_tensor",
    kind="state",
)
def test_initial_loss_and_update(student):
    # The grader chooses the initial weights (a fresh reference MiniBERT(2, 100, 32, 4), dropout off) and
    # the generator; the kernel loads them, runs one mlm_step with Adam, and reports the loss and the
    # logits of a grader-chosen probe batch after the step (eval mode). Both are compared with the same
    # step taken here, so "the parameters changed" is checked by behaviour, not by the kernel's word. A
    # forging kernel can pass only by reporting what a correct mlm_step would produce. The pad id is 5 here
    # (0 in the other test): it must reach both mask_inputs and the pad mask.
    ref = reference()
    pad = 5
    tokens = mlm_tokens(60, 100, pad=pad)
    probe = mlm_tokens(62, 100, rows=4, cols=10, pad=pad)
    torch.manual_seed(60)
    model = ref.MiniBERT(2, 100, 32, 4, 0.0, 0.0)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    code = (
        "model = MiniBERT(2, 100, 32, 4, 0.0, 0.0)\n"
        "model.load_state_dict(state)\n"
        "optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)\n"
        "loss = mlm_step(model, optimizer, tokens, 100, 100, pad, 0.15, torch.Generator().manual_seed(3))\n"
        "model.eval()\n"
        "with torch.no_grad():\n"
        "    logits = model(probe, pad_mask=probe == pad)\n"
        "result = {'loss': loss, 'logits': logits}"
    )
    out = student.run(code, stand_ins=MODEL, tokens=tokens, state=state, probe=probe, pad=pad)
    expect(
        isinstance(out["loss"], float),
        f"mlm_step must return the loss as a Python float (loss.item()); got a {type(out['loss']).__name__}: a "
        "loss tensor keeps the whole step's graph alive in the caller's list of losses",
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    masked, labels = ref.mask_inputs(tokens, 100, 100, pad, 0.15, generator=torch.Generator().manual_seed(3))
    loss = torch.nn.functional.cross_entropy(
        model(masked, pad_mask=tokens == pad).reshape(-1, 100), labels.reshape(-1), ignore_index=-100
    )
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    model.eval()
    with torch.no_grad():
        expected = model(probe, pad_mask=probe == pad)
    expect(
        abs(out["loss"] - loss.item()) <= 1e-4 * loss.item(),
        f"the first masked-LM loss differs from the reference by {abs(out['loss'] - loss.item()):.3g} (mask "
        f"with mask_inputs, the generator and pad_token_id={pad}, pad_mask = tokens == pad_token_id, "
        "cross-entropy over the selected tokens only)",
    )
    expect_close(
        out["logits"],
        expected,
        "the model's logits after one mlm_step with Adam (forward, loss, zero the gradients, backward, step)",
        rtol=1e-3,
        atol=1e-4,
    )


@question("mlm_step_tests", points=2)
@behaviour("mlm_step", "gradients zeroed every step", mutant="mlm_missing_zero_grad")
@behaviour(
    "mlm_step",
    "train mode: the model put in training mode (stated in the skeleton)",
    mutant="mlm_step_without_train_mode",
)
@behaviour(
    "mlm_step",
    "two SGD steps checked to 0.1% of each parameter's own movement (a step's effect)",
    mutant="mlm_missing_zero_grad",
    kind="step-tolerance",
)
@behaviour("mlm_step", "returns the loss of each step as a float", mutant="mlm_step_returns_loss_tensor")
def test_two_steps_match_reference(student):
    # Training mode under the same seeded randomness: the model (dropout 0.1 everywhere) is handed to
    # mlm_step in eval mode, and both processes seed torch with the same number before the two steps, so a
    # correct mlm_step (model.train(), then the same forward) draws the same dropout masks as the reference
    # mlm_step run here. One that leaves the model in eval mode computes another loss and other updates.
    # Tolerance from the size of the effect: over the two steps each parameter tensor of the reference moves
    # by 0.008 to 0.13 (its largest entry), and each is compared to 0.1% of its own movement (plus 1e-7),
    # some hundred times float32 noise and far below a step: a second step that re-adds the first step's
    # gradient (no zero_grad) is off by a whole step's worth.
    ref = reference()
    vocab, seed = 37, 62
    tokens = mlm_tokens(61, vocab, rows=12, cols=15)
    torch.manual_seed(61)
    model = ref.MiniBERT(2, vocab, 16, 2, 0.1, 0.1)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    code = (
        "model = MiniBERT(2, vocab, 16, 2, 0.1, 0.1)\n"
        "model.load_state_dict(state)\n"
        "model.eval()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.5)\n"
        "g = torch.Generator().manual_seed(5)\n"
        "torch.manual_seed(seed)\n"
        "losses = [mlm_step(model, optimizer, tokens, vocab, vocab, 0, 0.3, g) for _ in range(2)]\n"
        "result = {'losses': losses, 'state': dict(model.state_dict())}"
    )
    out = student.run(code, stand_ins=MODEL, vocab=vocab, state=state, tokens=tokens, seed=seed)
    model.eval()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    g = torch.Generator().manual_seed(5)
    torch.manual_seed(seed)
    losses = [ref.mlm_step(model, optimizer, tokens, vocab, vocab, 0, 0.3, g) for _ in range(2)]
    got = out["losses"]
    expect(
        isinstance(got, list) and len(got) == 2 and all(isinstance(x, float) for x in got),
        "mlm_step must return the loss as a float",
    )
    for step, (mine, theirs) in enumerate(zip(got, losses), 1):
        expect(
            abs(mine - theirs) <= 1e-4 * abs(theirs) + 1e-5,
            f"loss of step {step} differs from the reference by {abs(mine - theirs):.3g} (the model in "
            f"training mode, masked with mask_inputs and the generator, pad_mask = tokens == pad, "
            f"cross-entropy over the selected tokens only)",
        )
    for name, tensor in model.state_dict().items():
        expect(name in out["state"], f"parameter {name} is missing after mlm_step")
        moved = (tensor - state[name]).abs().max().item()
        expect_close(
            out["state"][name],
            tensor,
            f"parameter {name} after two SGD steps in training mode (zero the gradients, backward, step; "
            f"it moves by up to {moved:.3g} over the two steps)",
            rtol=0.0,
            atol=1e-3 * moved + 1e-7,
        )


@question("mlm_step_tests")
@behaviour(
    "mlm_step",
    "a batch of one sentence: tokens (1, seq) keep their batch axis through the loss",
    mutant="mlm_step_squeezes_logits",
    kind="batch-of-one",
)
@behaviour("mlm_step", "returns the loss as a float on a batch of one too", mutant="mlm_step_returns_loss_tensor")
@behaviour("mlm_step", "the loss over the selected tokens on a batch of one too", mutant="mlm_loss_summed")
@behaviour("mlm_step", "the update on a batch of one too (backward before the step)", mutant="mlm_missing_backward")
@behaviour(
    "mlm_step", "the generator passed on to mask_inputs on a batch of one too", mutant="mlm_step_ignores_generator"
)
@behaviour("mlm_step", "pad_token_id passed on on a batch of one too", mutant="mlm_step_pad_id_zero")
def test_batch_of_one_sentence(student):
    # One sentence of 30 tokens (pad id 2), one SGD step, against the same step taken here: with this
    # generator mask_inputs selects some of its real tokens at rate 0.4, so the loss is a number.
    ref = reference()
    vocab, pad = 29, 2
    tokens = mlm_tokens(64, vocab, rows=1, cols=30, pad=pad)
    torch.manual_seed(64)
    model = ref.MiniBERT(1, vocab, 16, 2, 0.0, 0.0)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    code = (
        "model = MiniBERT(1, vocab, 16, 2, 0.0, 0.0)\n"
        "model.load_state_dict(state)\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.5)\n"
        "try:\n"
        "    loss = mlm_step(model, optimizer, tokens, vocab, vocab, pad, 0.4, torch.Generator().manual_seed(9))\n"
        "    result = {'loss': loss, 'head': model.head.weight.detach().clone()}\n"
        "except Exception:\n"
        "    result = None\n"
    )
    out = student.run(code, stand_ins=MODEL, vocab=vocab, pad=pad, state=state, tokens=tokens)
    expect(
        out is not None,
        "mlm_step raised an error on a batch of one sentence (tokens of shape (1, 30)): keep the batch axis "
        "(no .squeeze() on the logits; reshape them to (batch * seq, vocab_size) for the loss)",
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    loss = ref.mlm_step(model, optimizer, tokens, vocab, vocab, pad, 0.4, torch.Generator().manual_seed(9))
    expect(
        isinstance(out["loss"], float),
        f"mlm_step must return the loss as a Python float (loss.item()); got a {type(out['loss']).__name__}",
    )
    expect(
        abs(out["loss"] - loss) <= 1e-4 * abs(loss) + 1e-5,
        "the loss of mlm_step on a batch of one sentence (tokens of shape (1, 30), pad id 2) differs from the "
        "reference (the model in training mode, masked with mask_inputs, the generator and pad_token_id, pad_mask "
        "= tokens == pad_token_id, cross-entropy over the selected tokens only)",
    )
    moved = (model.head.weight - state["head.weight"]).abs().max().item()
    expect_close(
        out["head"],
        model.head.weight.detach(),
        "the head's weights after one mlm_step on a batch of one sentence",
        rtol=0.0,
        atol=1e-3 * moved + 1e-7,
    )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "mlm_step",
        "the mode it leaves the model in",
        "The docstring fixes the mode the step runs in (the visible check watches the forward call), not the one it leaves; variant mlm_step_functional_loss restores the caller's mode and keeps full marks.",
    ),
    (
        "mlm_step",
        "validation order",
        "It checks no argument and has no special case: every call runs the same steps, whose order (train mode, forward, zero_grad, backward, step) the train-mode, backward and zero_grad rows check.",
        "validation-order",
    ),
    (
        "mlm_step",
        "exact boundaries",
        "It compares nothing with a threshold (mask_inputs, the stand-in, does).",
        "boundary",
    ),
    ("mlm_step", "a sort's ties", "mlm_step sorts and ranks nothing.", "ties"),
    (
        "mlm_step",
        "degenerate values",
        "Its one degenerate input, a batch in which mask_inputs selects nothing, gives the skeleton's CrossEntropyLoss a mean over no token (NaN) in the reference too, so the contract says nothing about it; the tests' batches always select tokens.",
        "degenerate",
    ),
    (
        "mlm_step",
        "device of what it makes",
        "It makes no tensor but the pad mask, a comparison of tokens (on their device); pre-training runs on the CPU, where mask_inputs' generator lives.",
        "device",
    ),
    (
        "mlm_step",
        "hyper-parameters that are not whole numbers",
        "No arithmetic touches a hyper-parameter: mask_rate (0.15, 0.3 and 0.4 in the tests) passes unchanged to the stand-in mask_inputs.",
        "non-integer",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    (
        "mlm_step",
        "model",
        "the reference MiniBERT(2, 100, 32, 4) and MiniBERT(1, 29, 16, 2) without dropout, MiniBERT(2, 37, 16, 2) with dropout 0.1 handed over in eval mode",
        None,
    ),
    ("mlm_step", "optimizer", "Adam (lr 1e-3), SGD (lr 0.5)", None),
    (
        "mlm_step",
        "tokens",
        "(16, 24) padded with id 5, (12, 15) padded with id 0, one sentence (1, 30) padded with id 2",
        None,
    ),
    ("mlm_step", "vocab_size", "29, 37, 100", None),
    ("mlm_step", "mask_token_id", "29, 37, 100 (vocab_size: MiniBERT's [MASK])", None),
    ("mlm_step", "pad_token_id", "0, 2, 5", None),
    ("mlm_step", "mask_rate", "0.15, 0.3, 0.4", None),
    ("mlm_step", "generator", "generators seeded 3, 5, 9", None),
]
