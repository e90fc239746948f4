"""train_lm_tests: evaluate_lm's loss and perplexity, the causal mask during training, learning."""

import math

import torch

from assignments.grading.testkit import expect, kernel_value, question
from autograder.transfer_lm import checks, oracles
from autograder.transfer_lm.checks import key_problems
from autograder.transfer_lm.inputs import chunks, markov_ids
from autograder.transfer_lm.oracles import causal_mask, held_out_loss, reference_model

STAND_INS = ("generate_square_subsequent_mask", "PositionalEncoding", "Model")


@question("train_lm_tests", points=1)
def test_evaluate_lm_loss_and_perplexity(student):
    # Vocabulary 31, nhid 16, 2 heads, 1 layer, dropout 0.3; 10 windows of 9 tokens in batches of 4
    # (the last batch is short: the average must be over tokens). Dropout must be off in evaluation.
    g = torch.Generator().manual_seed(12)
    inputs, targets = torch.randint(1, 31, (10, 9), generator=g), torch.randint(1, 31, (10, 9), generator=g)
    # The grader chooses the weights and the kernel loads them: the expected loss never depends on
    # weights the kernel reports.
    reference = reference_model(31, 2, 16, 1, 31, seed=12)
    state = {k: v.clone() for k, v in reference.state_dict().items()}
    out = student.run(
        "model = Model(31, 2, 16, 1, 31, dropout=0.3)\n"
        "model.load_state_dict(state)\n"
        "model.train()\n"
        "loss, ppl = evaluate_lm(model, inputs, targets, batch_size=4)\n"
        "result = {'loss': loss, 'ppl': ppl}",
        stand_ins=STAND_INS,
        inputs=inputs,
        targets=targets,
        state=state,
    )
    expected = held_out_loss(reference, inputs, targets)
    loss, ppl = float(out["loss"]), float(out["ppl"])
    expect(
        math.isclose(loss, expected, rel_tol=1e-4),
        f"evaluate_lm's loss should be the mean cross-entropy per token over all windows, in eval mode; "
        f"got {loss:.5f}, off by {abs(loss - expected):.3g} (relative tolerance 1e-4)",
    )
    expect(
        math.isclose(ppl, math.exp(loss), rel_tol=1e-4),
        f"the perplexity should be exp(loss) = {math.exp(loss):.4f} for your loss; got {ppl:.4f}",
    )


SPY = """
seen = []
class Spy(Model):
    def forward(self, src, src_mask=None, *args, **kwargs):
        seen.append(src_mask)
        return super().forward(src, src_mask, *args, **kwargs)
model = Spy(23, 2, 16, 1, 23, dropout=0.3)
model.load_state_dict(state)
model.eval()   # as evaluate_lm leaves it: train_lm must switch training mode on by itself
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
torch.manual_seed(dropout_seed)   # the grader's oracle draws the same dropout masks from this seed
mean_loss = train_lm(model, inputs, targets, optimizer, batch_size=4, clip=0.5, progress=False)
result = {'masks': [m if isinstance(m, torch.Tensor) else None for m in seen], 'loss': mean_loss,
          'state': model.state_dict()}
"""
DROPOUT_SEED = 29


def _reference_epoch(state, inputs, targets):
    """(mean loss, state after) of one reference epoch in training mode, dropout 0.3, same seed as the kernel."""
    with torch.random.fork_rng(), oracles.one_thread():
        model = oracles.reference.Model(23, 2, 16, 1, 23, 0.3)
        model.load_state_dict(state)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
        torch.manual_seed(DROPOUT_SEED)
        loss = oracles.reference.train_lm(model, inputs, targets, optimizer, batch_size=4, clip=0.5, progress=False)
    return loss, model.state_dict()


@question("train_lm_tests", points=1)
def test_train_lm_epoch_matches_reference_in_training_mode(student):
    # 10 windows of 6 tokens in batches of 4: three calls of the model, each with a causal mask. Then the
    # whole epoch is compared with the reference's from the same grader-chosen weights and the same seeded
    # dropout masks (dropout 0.3, SGD lr 0.5, clip 0.5): a loop that leaves the model in evaluation mode,
    # skips zero_grad or clipping, or averages over batches (the last one holds 2 windows, not 4) ends
    # elsewhere. Both sides draw their masks in the same order, so a correct loop matches to rounding.
    g = torch.Generator().manual_seed(13)
    inputs, targets = torch.randint(1, 23, (10, 6), generator=g), torch.randint(1, 23, (10, 6), generator=g)
    state = {k: v.clone() for k, v in reference_model(23, 2, 16, 1, 23, seed=13).state_dict().items()}
    out = student.run(
        checks.single_threaded(SPY),
        stand_ins=STAND_INS,
        inputs=inputs,
        targets=targets,
        state=state,
        dropout_seed=DROPOUT_SEED,
    )
    masks = out["masks"]
    expect(
        isinstance(masks, list) and len(masks) == 3,
        f"train_lm should call the model once per batch: 10 windows in batches of 4 is 3 calls; "
        f"got {len(masks) if isinstance(masks, list) else kernel_value(masks)}",
    )
    for mask in masks:
        additive = oracles.as_additive(mask)
        expect(
            additive is not None,
            "train_lm called the model without a mask; the model would see the next token, which is its target",
        )
        expect(
            tuple(additive.shape) == (6, 6) and torch.equal(additive, causal_mask(6)),
            "train_lm gave the model a mask that is not the causal (square subsequent) mask",
        )
    expected_loss, expected_state = _reference_epoch(state, inputs, targets)
    loss = out["loss"]
    if isinstance(loss, torch.Tensor) and loss.numel() == 1:  # a one-number tensor is read as its value
        loss = loss.item()
    expect(
        isinstance(loss, (int, float)) and not isinstance(loss, bool),
        f"train_lm should return the mean loss as a float; got {kernel_value(loss)}",
    )
    expect(
        math.isclose(loss, expected_loss, rel_tol=1e-4),
        f"the mean training loss train_lm returns differs from the reference's {expected_loss:.4f} for the "
        f"same epoch (training mode, dropout on, mean per token over all windows, the short last batch "
        f"counted by its size)",
    )
    after = out["state"]
    expect(isinstance(after, dict) and not key_problems(after, expected_state), "unexpected model state after training")
    worst = max((after[name].float() - tensor).abs().max().item() for name, tensor in expected_state.items())
    expect(
        worst < 1e-4,
        f"after one epoch of train_lm the weights differ from the reference's by up to {worst:.3g}: "
        f"put the model in training mode, zero the gradients before each backward, clip the "
        f"gradient norm to `clip`, step once per batch, and take the rows in order",
    )


@question("train_lm_tests", points=1)
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
