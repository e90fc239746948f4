"""train_lm_tests: evaluate_lm's loss and perplexity, the causal mask during training, learning."""

import math

import torch

from assignments.grading.checks import expect, expect_between, question
from autograder.transfer_lm import synthetic
from autograder.transfer_lm.synthetic import causal_mask, held_out_loss, key_problems, reference_model

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
    out = student.run("model = Model(31, 2, 16, 1, 31, dropout=0.3)\n"
                      "model.load_state_dict(state)\n"
                      "model.train()\n"
                      "loss, ppl = evaluate_lm(model, inputs, targets, batch_size=4)\n"
                      "result = {'loss': loss, 'ppl': ppl}",
                      stand_ins=STAND_INS, inputs=inputs, targets=targets, state=state)
    expected = held_out_loss(reference, inputs, targets)
    loss, ppl = float(out["loss"]), float(out["ppl"])
    expect(math.isclose(loss, expected, rel_tol=1e-4),
           f"evaluate_lm's loss should be the mean cross-entropy per token over all windows, in eval mode; "
           f"got {loss:.5f}, off by {abs(loss - expected):.3g} (relative tolerance 1e-4)")
    expect(math.isclose(ppl, math.exp(loss), rel_tol=1e-4),
           f"the perplexity should be exp(loss) = {math.exp(loss):.4f} for your loss; got {ppl:.4f}")


SPY = '''
seen = []
class Spy(Model):
    def forward(self, src, src_mask=None, *args, **kwargs):
        seen.append(src_mask)
        return super().forward(src, src_mask, *args, **kwargs)
model = Spy(23, 2, 16, 1, 23, dropout=0.0)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
mean_loss = train_lm(model, inputs, targets, optimizer, batch_size=4, progress=False)
result = {'masks': [m if isinstance(m, torch.Tensor) else None for m in seen], 'loss': mean_loss}
'''


@question("train_lm_tests", points=1)
def test_train_lm_uses_causal_mask_each_batch(student):
    # 10 windows of 6 tokens in batches of 4: three calls of the model, each with a causal mask.
    g = torch.Generator().manual_seed(13)
    inputs, targets = torch.randint(1, 23, (10, 6), generator=g), torch.randint(1, 23, (10, 6), generator=g)
    out = student.run(synthetic.single_threaded(SPY), stand_ins=STAND_INS, inputs=inputs, targets=targets)
    masks = out["masks"]
    expect(len(masks) == 3, f"train_lm should call the model once per batch: 10 windows in batches of 4 is "
                            f"3 calls; got {len(masks)}")
    for mask in masks:
        additive = synthetic.as_additive(mask)
        expect(additive is not None, "train_lm called the model without a mask; the model would see the "
                                     "next token, which is its target")
        expect(tuple(additive.shape) == (6, 6) and torch.equal(additive, causal_mask(6)),
               "train_lm gave the model a mask that is not the causal (square subsequent) mask")
    expect_between(float(out["loss"]), 0.5 * math.log(23), 2 * math.log(23),
                   "the mean training loss returned for one epoch of a fresh model")


@question("train_lm_tests", points=1)
def test_train_lm_lowers_held_out_loss(student):
    # A first-order Markov chain over 29 tokens, 2 successors each: best loss ln 2 = 0.69, uniform ln 29 = 3.37.
    # 149 training windows of 16 tokens; model vocabulary 29, nhid 32, 2 heads, 1 layer, no dropout;
    # Adam lr 3e-3, 8 epochs in batches of 16 (80 steps, about half a second of one CPU core).
    # Calibration (reference, seeds 0..19): held-out loss 0.769 .. 0.785, worst 0.785. Bar: 1.0.
    # Training without the causal mask reaches only 1.06 .. 1.15 under the causal evaluation.
    train_x, train_y = synthetic.chunks(synthetic.markov_ids(2400, seed=1), 16)
    held_x, held_y = synthetic.chunks(synthetic.markov_ids(1200, seed=2), 16)
    out = student.run(synthetic.single_threaded(
                      "model = Model(29, 2, 32, 1, 29, dropout=0.0)\n"
                      "optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)\n"
                      "for epoch in range(8):\n"
                      "    train_lm(model, inputs, targets, optimizer, batch_size=16, progress=False)\n"
                      "result = model.state_dict()"),
                      stand_ins=STAND_INS, inputs=train_x, targets=train_y, timeout=30)
    reference = reference_model(29, 2, 32, 1, 29)
    expect(not key_problems(out, reference.state_dict()), "unexpected model state after training")
    reference.load_state_dict(out)
    loss = held_out_loss(reference, held_x, held_y)
    expect(math.isfinite(loss) and loss < 1.0,
           f"after 8 epochs of train_lm the held-out loss should fall below 1.0 (it starts at ln 29 = 3.37); "
           f"got {loss:.3f}")
