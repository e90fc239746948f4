"""train_lm_tests: evaluate_lm's loss and perplexity, the causal mask during training, learning."""

import math

import torch

from assignments.grading.testkit import behaviour, expect, kernel_value, question
from autograder.transfer_lm import checks, oracles
from autograder.transfer_lm.checks import key_problems
from autograder.transfer_lm.inputs import chunks, markov_ids
from autograder.transfer_lm.oracles import causal_mask, held_out_loss, reference_model

STAND_INS = ("generate_square_subsequent_mask", "PositionalEncoding", "Model")


CASES = ((9, 4), (5, 1))  # (window length, batch_size) of evaluate_lm's calls


@question("train_lm_tests")
@behaviour("evaluate_lm", "the mean loss per token over all windows", mutant="evaluate_mean_over_batches")
@behaviour("evaluate_lm", "evaluation mode (dropout off)", mutant="evaluate_in_training_mode")
@behaviour("evaluate_lm", "perplexity is exp of the loss in nats", mutant="perplexity_base_two")
def test_evaluate_lm_loss_and_perplexity(student):
    # Vocabulary 31, nhid 16, 2 heads, 1 layer, dropout 0.3; 10 windows of 9 tokens in batches of 4 (the last
    # batch is short: the average must be over tokens), then the same windows cut to 5 tokens in batches of 1.
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
        loss, ppl = float(loss), float(ppl)
        expect(
            math.isclose(loss, expected, rel_tol=1e-4),
            f"windows of {width}, batch_size {size}: evaluate_lm's loss should be the mean cross-entropy per token "
            f"over all windows, in eval mode with the causal mask of the windows' length; got {loss:.5f}, off by "
            f"{abs(loss - expected):.3g} (relative tolerance 1e-4)",
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


def _as_float(value):
    if isinstance(value, torch.Tensor) and value.numel() == 1:  # a one-number tensor is read as its value
        value = value.item()
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


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
def test_train_lm_epoch_matches_reference_in_training_mode(student):
    # 10 windows of 6 tokens, two epochs (EPOCHS): every call of the model in training mode with a causal mask.
    # Then both epochs are compared with the reference's from the same grader-chosen weights (SGD lr 0.5): a loop
    # that skips zero_grad, clips after the step or at a fixed norm, backpropagates the summed loss, or
    # averages over batches ends elsewhere. The model has no dropout, so the comparison holds whatever random
    # numbers a correct loop draws (a DataLoader draws one from torch's global generator); the mode the model
    # runs in is read from each call instead.
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
        f"{CALLS} calls; got {len(calls) if isinstance(calls, list) else kernel_value(calls)}",
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
    worst = max((after[name].float() - tensor).abs().max().item() for name, tensor in expected_state.items())
    expect(
        worst < 1e-4,
        f"after two epochs of train_lm the weights differ from the reference's by up to {worst:.3g}: zero the "
        f"gradients before each backward, backpropagate the mean loss per token (not the sum), clip the "
        f"gradient norm to the `clip` you are given before the step, step once per batch, and take the rows "
        f"in order",
    )
    losses = out["losses"]
    expect(
        isinstance(losses, list) and len(losses) == len(EPOCHS),
        "train_lm should return one mean loss per epoch (a float)",
    )
    for epoch, ((size, _), expected_loss) in enumerate(zip(EPOCHS, expected_losses)):
        loss = _as_float(losses[epoch])
        expect(loss is not None, f"train_lm should return the mean loss as a float; got {kernel_value(losses[epoch])}")
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
    (
        "train_lm",
        "data order: rows in order",
        "The skeleton fixes the order so that a seeded oracle can replay the epoch; nobody adds an unasked shuffle, so no mutant is kept.",
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
        "Without it the values are the same and only memory grows, which tiny grading models cannot show.",
    ),
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
        "evaluate_lm only calls the model it is given; what it can get wrong about it (the mode, the mask's size, the averaging) shows with one model handed over in training mode, at two window lengths and batch sizes.",
    ),
    ("evaluate_lm", "inputs", "(10, 9), (10, 5)", None),
    ("evaluate_lm", "targets", "(10, 9), (10, 5)", None),
    ("evaluate_lm", "batch_size", "4 (a short last batch), 1", None),
]
