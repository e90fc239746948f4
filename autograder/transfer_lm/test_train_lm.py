"""train_lm_tests: evaluate_lm's loss and perplexity, the causal mask during training, learning."""

import math

import torch

from assignments.grading.testkit import behaviour, expect, kernel_value, question
from autograder.transfer_lm import checks, oracles
from autograder.transfer_lm.checks import key_problems
from autograder.transfer_lm.inputs import chunks, markov_ids
from autograder.transfer_lm.oracles import causal_mask, held_out_loss, reference_model

STAND_INS = ("generate_square_subsequent_mask", "PositionalEncoding", "Model")


# (window length, batch_size) of evaluate_lm's calls over 10 windows: a short last batch of 2, a last batch of
# one window, and batches of one that fill the windows exactly.
CASES = ((9, 4), (7, 3), (5, 1))


def _graph_note(value) -> str:
    return (
        " (a tensor: add loss.item() to your total, since a loss tensor holds the graph of its batches alive)"
        if isinstance(value, torch.Tensor)
        else ""
    )


@question("train_lm_tests")
@behaviour("evaluate_lm", "the mean loss per token over all windows", mutant="evaluate_mean_over_batches")
@behaviour("evaluate_lm", "evaluation mode (dropout off)", mutant="evaluate_in_training_mode")
@behaviour("evaluate_lm", "perplexity is exp of the loss in nats", mutant="perplexity_base_two")
@behaviour(
    "evaluate_lm",
    "randomness: none, dropout 0.3 off in evaluation mode though the model comes in training mode",
    mutant="evaluate_in_training_mode",
    kind="randomness",
)
@behaviour(
    "evaluate_lm",
    "exact boundary: the batch that starts at len(inputs) - batch_size is measured (batches of 1, 10 windows)",
    mutant="evaluate_lm_stops_one_batch_early",
    kind="boundary",
)
@behaviour(
    "evaluate_lm",
    "a last batch of one window (10 windows in batches of 3) is measured and weighs one window",
    mutant="evaluate_lm_skips_short_last_batch",
    kind="batch-of-one",
)
@behaviour(
    "evaluate_lm",
    "returns two Python floats, not a loss tensor holding the graph of every batch past the call (#44 item 4)",
    mutant="evaluate_lm_returns_loss_tensor",
    kind="state",
)
def test_evaluate_lm_loss_and_perplexity(student):
    # Vocabulary 31, nhid 16, 2 heads, 1 layer, dropout 0.3; 10 windows of 9 tokens in batches of 4 (the last
    # batch is short: the average must be over tokens), then the same windows cut to 7 tokens in batches of 3
    # (the last batch holds one window), then cut to 5 tokens in batches of 1.
    # Dropout must be off in evaluation: the model is in training mode before each call.
    g = torch.Generator().manual_seed(12)
    inputs, targets = torch.randint(1, 31, (10, 9), generator=g), torch.randint(1, 31, (10, 9), generator=g)
    # The grader chooses the weights and the kernel loads them: the expected loss never depends on
    # weights the kernel reports.
    reference = reference_model(31, 2, 16, 1, 31, seed=12)
    state = {k: v.clone() for k, v in reference.state_dict().items()}
    out = student.run(
        "model = Model(31, 2, 16, 1, 31, dropout=0.3)\n"
        "model.load_state_dict(state)\n"
        "result = []\n"
        "for windows, next_tokens, size in cases:\n"
        "    model.train()\n"
        "    result.append(evaluate_lm(model, windows, next_tokens, batch_size=size))",
        stand_ins=STAND_INS,
        cases=[[inputs[:, :width].contiguous(), targets[:, :width].contiguous(), size] for width, size in CASES],
        state=state,
    )
    for (width, size), (loss, ppl) in zip(CASES, out):
        expected = held_out_loss(reference, inputs[:, :width], targets[:, :width])
        expect(
            all(isinstance(value, float) for value in (loss, ppl)),
            "evaluate_lm should return the loss and the perplexity as two Python floats"
            + _graph_note(loss if isinstance(loss, torch.Tensor) else ppl),
        )
        expect(
            math.isclose(loss, expected, rel_tol=1e-4),
            f"windows of {width}, batch_size {size}: evaluate_lm's loss should be the mean cross-entropy per token "
            f"over all windows (a short last batch included), in eval mode with the causal mask of the windows' "
            f"length; got {loss:.5f}, off by {abs(loss - expected):.3g} (relative tolerance 1e-4)",
        )
        expect(
            math.isclose(ppl, math.exp(loss), rel_tol=1e-4),
            f"the perplexity should be exp(loss) = {math.exp(loss):.4f} for your loss; got {ppl:.4f}",
        )


SPY = """
seen = []
class Spy(Model):
    def forward(self, src, src_mask=None, *args, **kwargs):
        seen.append({'mask': src_mask, 'training': self.training})
        return super().forward(src, src_mask, *args, **kwargs)
model = Spy(23, 2, 16, 1, 23, dropout=0.0)
model.load_state_dict(state)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
losses = []
for batch_size, clip in epochs:
    model.eval()   # as evaluate_lm may leave it: train_lm must switch training mode on by itself
    losses.append(train_lm(model, inputs, targets, optimizer, batch_size=batch_size, clip=clip, progress=False))
result = {'calls': [{'mask': c['mask'] if isinstance(c['mask'], torch.Tensor) else None, 'training': c['training']}
                    for c in seen],
          'losses': losses, 'state': model.state_dict()}
"""
# Two epochs: batches of 4 (4 + 4 + 2) with the gradient norm clipped to 0.05, which every step's gradient
# exceeds (norms 0.86 to 1.29 on the reference), then batches of 3 (3 + 3 + 3 + 1) with clip 10, which no
# step of the mean loss reaches (norms 0.97 to 1.82) and every step of the summed loss does (18 or 6 tokens).
EPOCHS = ((4, 0.05), (3, 10.0))
CALLS = 7


def _reference_epochs(state, inputs, targets):
    """(mean losses, state after) of the reference's epochs from the same weights, without dropout."""
    with torch.random.fork_rng(), oracles.one_thread():
        model = oracles.reference.Model(23, 2, 16, 1, 23, 0.0)
        model.load_state_dict(state)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
        losses = [
            oracles.reference.train_lm(model, inputs, targets, optimizer, batch_size=size, clip=clip, progress=False)
            for size, clip in EPOCHS
        ]
    return losses, model.state_dict()


@question("train_lm_tests")
@behaviour("train_lm", "the causal mask on every batch", mutant="train_without_mask")
@behaviour(
    "train_lm",
    "training mode, even after evaluate_lm left the model in evaluation mode",
    mutant="train_lm_never_calls_train",
)
@behaviour("train_lm", "gradients zeroed before each backward", mutant="train_lm_no_zero_grad")
@behaviour("train_lm", "gradient norm clipped before the step", mutant="train_lm_clips_after_step")
@behaviour("train_lm", "the mean loss per token, the short last batch by its size", mutant="train_lm_mean_over_batches")
@behaviour(
    "train_lm",
    "reduction: the mean cross-entropy per token is backpropagated, not the sum (stated in the skeleton)",
    mutant="train_lm_backprops_sum",
)
@behaviour(
    "train_lm",
    "the gradient norm clipped to the clip argument (0.05 and 10), not a fixed 0.5",
    mutant="train_lm_clip_fixed",
)
@behaviour(
    "train_lm",
    "data order: the rows in order, no shuffle (the batches replayed with the reference's)",
    mutant="train_lm_shuffles_rows",
)
@behaviour(
    "train_lm",
    "randomness: the loop draws nothing of its own to order the rows (no randperm, no shuffling loader)",
    mutant="train_lm_shuffles_rows",
    kind="randomness",
)
@behaviour(
    "train_lm",
    "exact boundary: the batch that starts at len(inputs) - batch_size or later is trained on",
    mutant="train_lm_stops_one_batch_early",
    kind="boundary",
)
@behaviour(
    "train_lm",
    "a last batch of one window (10 windows in batches of 3) is trained on and weighs one window",
    mutant="train_lm_skips_short_last_batch",
    kind="batch-of-one",
)
@behaviour(
    "train_lm",
    "degenerate clip: a norm no step reaches (10) leaves every step as it is",
    mutant="train_lm_clip_fixed",
    kind="degenerate",
)
@behaviour(
    "train_lm",
    "state across calls: training mode set on every call, though the last call left the model in evaluation mode",
    mutant="train_lm_never_calls_train",
    kind="state",
)
@behaviour(
    "train_lm",
    "returns a Python float, not a loss tensor holding the graph of every batch past the call (#44 item 4)",
    mutant="train_lm_returns_loss_tensor",
    kind="state",
)
@behaviour(
    "train_lm",
    "seven SGD steps checked to 0.1% of each parameter tensor's own movement (the effect of the steps)",
    mutant="train_lm_no_zero_grad",
    kind="step-tolerance",
)
def test_train_lm_epoch_matches_reference_in_training_mode(student):
    # 10 windows of 6 tokens, two epochs (EPOCHS): every call of the model in training mode with a causal mask.
    # Then both epochs are compared with the reference's from the same grader-chosen weights (SGD lr 0.5): a loop
    # that skips zero_grad, clips after the step or at a fixed norm, backpropagates the summed loss, averages
    # over batches, shuffles the rows or leaves a batch out ends elsewhere. The model has no dropout, so the
    # comparison holds whatever random numbers a correct loop draws (a DataLoader draws one from torch's global
    # generator); the mode the model runs in is read from each call instead.
    # Tolerance from the size of the effect: over the seven steps each parameter tensor of the reference moves
    # by 0.012 to 0.22 (its largest entry), and each is compared to 0.1% of its own movement (plus 1e-7), some
    # hundred times float32 noise and far below one step's share of it; the positional table, a buffer, must
    # not move at all.
    g = torch.Generator().manual_seed(13)
    inputs, targets = torch.randint(1, 23, (10, 6), generator=g), torch.randint(1, 23, (10, 6), generator=g)
    state = {k: v.clone() for k, v in reference_model(23, 2, 16, 1, 23, seed=13).state_dict().items()}
    out = student.run(
        checks.single_threaded(SPY),
        stand_ins=STAND_INS,
        inputs=inputs,
        targets=targets,
        state=state,
        epochs=[list(epoch) for epoch in EPOCHS],
    )
    calls = out["calls"]
    expect(
        isinstance(calls, list) and len(calls) == CALLS,
        f"train_lm should call the model once per batch: 10 windows in batches of 4, then of 3, is 3 + 4 = "
        f"{CALLS} calls (each epoch's short last batch included: 2 windows, then 1); got "
        f"{len(calls) if isinstance(calls, list) else kernel_value(calls)}",
    )
    expect(
        all(call["training"] is True for call in calls),
        "train_lm called the model in evaluation mode; put it in training mode first (evaluate_lm may have "
        "left it in evaluation mode, and dropout must be on while it learns)",
    )
    for call in calls:
        additive = oracles.as_additive(call["mask"])
        expect(
            additive is not None,
            "train_lm called the model without a mask; the model would see the next token, which is its target",
        )
        expect(
            tuple(additive.shape) == (6, 6) and torch.equal(additive, causal_mask(6)),
            "train_lm gave the model a mask that is not the causal (square subsequent) mask",
        )
    expected_losses, expected_state = _reference_epochs(state, inputs, targets)
    after = out["state"]
    expect(isinstance(after, dict) and not key_problems(after, expected_state), "unexpected model state after training")
    off = []
    for name, tensor in expected_state.items():
        moved = (tensor - state[name]).abs().max().item()
        if (after[name].float() - tensor).abs().max().item() > 1e-3 * moved + 1e-7:
            off.append(name)
    expect(
        not off,
        f"after two epochs of train_lm {len(off)} of the model's {len(expected_state)} tensors differ from the "
        f"reference's by more than 0.1% of how far the steps move them: zero the gradients before each backward, "
        f"backpropagate the mean loss per token (not the sum), clip the gradient norm to the `clip` you are given "
        f"before the step, step once per batch, and take the rows in order, the short last batch included",
    )
    losses = out["losses"]
    expect(
        isinstance(losses, list) and len(losses) == len(EPOCHS),
        "train_lm should return one mean loss per epoch (a float)",
    )
    for epoch, ((size, _), expected_loss) in enumerate(zip(EPOCHS, expected_losses)):
        loss = losses[epoch]
        expect(
            isinstance(loss, float),
            "train_lm should return the mean loss as a Python float"
            + (_graph_note(loss) or f"; got {kernel_value(loss)}"),
        )
        expect(
            math.isclose(loss, expected_loss, rel_tol=1e-4),
            f"epoch {epoch + 1} (batches of {size}): the mean training loss train_lm returns differs from the "
            f"reference's {expected_loss:.4f} for the same epoch (mean per token over all windows, the short "
            f"last batch counted by its size)",
        )


@question("train_lm_tests")
@behaviour("train_lm", "the model learns the task (held-out loss)", mutant="train_without_mask")
def test_train_lm_lowers_held_out_loss(student):
    # A first-order Markov chain over 29 tokens, 2 successors each: best loss ln 2 = 0.69, uniform ln 29 = 3.37.
    # 149 training windows of 16 tokens; model vocabulary 29, nhid 32, 2 heads, 1 layer, no dropout;
    # Adam lr 3e-3, 8 epochs in batches of 16 (80 steps, about half a second of one CPU core).
    # Calibration (reference, seeds 0..19): held-out loss 0.769 .. 0.785, worst 0.785. Bar: 1.0.
    # Training without the causal mask reaches only 1.06 .. 1.15 under the causal evaluation.
    train_x, train_y = chunks(markov_ids(2400, seed=1), 16)
    held_x, held_y = chunks(markov_ids(1200, seed=2), 16)
    out = student.run(
        checks.single_threaded(
            "model = Model(29, 2, 32, 1, 29, dropout=0.0)\n"
            "optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)\n"
            "for epoch in range(8):\n"
            "    train_lm(model, inputs, targets, optimizer, batch_size=16, progress=False)\n"
            "result = model.state_dict()"
        ),
        stand_ins=STAND_INS,
        inputs=train_x,
        targets=train_y,
        timeout=30,
    )
    reference = reference_model(29, 2, 32, 1, 29)
    expect(not key_problems(out, reference.state_dict()), "unexpected model state after training")
    reference.load_state_dict(out)
    loss = held_out_loss(reference, held_x, held_y)
    expect(
        math.isfinite(loss) and loss < 1.0,
        f"after 8 epochs of train_lm the held-out loss should fall below 1.0 (it starts at ln 29 = 3.37); "
        f"got {loss:.3f}",
    )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "train_lm",
        "randomness: the random numbers the loop itself draws",
        "The replayed epochs run without dropout and the mode is read from each call, so a loop that draws (a DataLoader seeds itself from torch's generator) matches; variant train_lm_dataloader keeps full marks.",
    ),
    ("train_lm", "device, progress bar", "Grading runs on the CPU, and the bar only displays."),
    (
        "evaluate_lm",
        "the mode it leaves the model in",
        "The skeletons ask for evaluation mode while measuring and have train_lm set its own mode, so staying in eval mode and restoring the mode found are both right; variant train_lm_dataloader restores it.",
    ),
    (
        "evaluate_lm",
        "torch.no_grad",
        "Without it the values are the same and only memory grows, which tiny grading models cannot show; a loss returned as a tensor that holds the graph is caught (kind state).",
    ),
    # The kinds every definition answers for (autograder/README.md, Kinds every definition answers for).
    (
        "train_lm",
        "validation order",
        "It checks no argument and has no special case: every batch, the short last one included, takes the same steps.",
        "validation-order",
    ),
    ("train_lm", "a sort's ties", "It sorts and ranks nothing.", "ties"),
    (
        "train_lm",
        "device of what it makes",
        "Grading has no second device, and the 'meta' device cannot stand in for one: the loop must return a float, and .item() needs data, which meta tensors do not hold.",
        "device",
    ),
    (
        "train_lm",
        "hyper-parameters that are not whole numbers",
        "No arithmetic touches a hyper-parameter: clip (0.05, 10 and 0.5 in the tests) goes unchanged to clip_grad_norm_, and batch_size is a count.",
        "non-integer",
    ),
    (
        "evaluate_lm",
        "validation order",
        "It checks no argument and has no special case: every batch, the short last one included, is measured alike.",
        "validation-order",
    ),
    ("evaluate_lm", "a sort's ties", "It sorts and ranks nothing.", "ties"),
    (
        "evaluate_lm",
        "degenerate values",
        "No value is special to it: batches of one window (batch_size 1) and a last batch of one are among the test's cases, averaged by the same sum over tokens.",
        "degenerate",
    ),
    (
        "evaluate_lm",
        "device of what it makes",
        "Grading has no second device, and the 'meta' device cannot stand in for one: the loss must come back as a float, and .item() needs data, which meta tensors do not hold.",
        "device",
    ),
    (
        "evaluate_lm",
        "hyper-parameters that are not whole numbers",
        "Its one hyper-parameter, batch_size, is a count.",
        "non-integer",
    ),
    ("evaluate_lm", "optimisation steps", "It takes no optimisation step: it only measures.", "step-tolerance"),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("train_lm", "model", "Model(23, 2, 16, 1, 23) without dropout, Model(29, 2, 32, 1, 29)", None),
    ("train_lm", "inputs", "(10, 6), (149, 16)", None),
    ("train_lm", "targets", "(10, 6), (149, 16)", None),
    ("train_lm", "optimizer", "SGD, Adam", None),
    ("train_lm", "batch_size", "4, 3 (a last batch of one), 16", None),
    ("train_lm", "clip", "0.05, 10, 0.5", None),
    (
        "train_lm",
        "progress",
        "False",
        "The bar only displays; graded runs pass False, as the notebook's own cells do when grading.",
    ),
    (
        "evaluate_lm",
        "model",
        "Model(31, 2, 16, 1, 31) with dropout 0.3 in training mode before each call",
        "evaluate_lm only calls the model it is given; what it can get wrong about it (the mode, the mask's size, the averaging) shows with one model handed over in training mode, at three window lengths and batch sizes.",
    ),
    ("evaluate_lm", "inputs", "(10, 9), (10, 7), (10, 5)", None),
    ("evaluate_lm", "targets", "(10, 9), (10, 7), (10, 5)", None),
    ("evaluate_lm", "batch_size", "4 (a short last batch), 3 (a last batch of one), 1", None),
]
