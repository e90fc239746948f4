"""finetune_tests: predict_classes against the reference; a pre-trained classifier learns the task.

The held-out labels stay here: the student's code receives the held-out reviews only and returns
predictions, which are scored in the grader.
"""

import math

import torch
import torch.nn.functional as F

from assignments.grading.testkit import behaviour, expect, expect_shape, kernel_value, question
from autograder.transfer_lm import checks, oracles
from autograder.transfer_lm.checks import key_problems
from autograder.transfer_lm.inputs import REVIEW_NTOKEN, labelled_reviews, pretrained_review_lm
from autograder.transfer_lm.oracles import causal_mask, reference_model

STAND_INS = ("generate_square_subsequent_mask", "PositionalEncoding", "Model", "load_pretrained_base")


@question("finetune_tests")
@behaviour("predict_classes", "arg-max over the classes", mutant="predict_argmax_wrong_dim")
@behaviour("predict_classes", "evaluation mode", mutant="predict_without_eval")
@behaviour(
    "predict_classes",
    "randomness: none, dropout 0.3 off in evaluation mode though the model comes in training mode",
    mutant="predict_without_eval",
    kind="randomness",
)
@behaviour(
    "predict_classes",
    "state across calls: evaluation mode set on every call, though the model comes in training mode",
    mutant="predict_without_eval",
    kind="state",
)
@behaviour(
    "predict_classes",
    "exact boundary: the batch that starts at len(inputs) - batch_size or later gets its predictions",
    mutant="predict_classes_stops_one_batch_early",
    kind="boundary",
)
@behaviour(
    "predict_classes",
    "a last batch of one review (11 reviews in batches of 5) keeps its batch axis",
    mutant="predict_classes_squeeze_tolist",
    kind="batch-of-one",
)
def test_predict_classes_matches_reference(student):
    # Vocabulary 19, nhid 12, 2 heads, 1 layer, 3 classes, dropout 0.3; 11 rows of 8 in batches of 5 (5 + 5 + 1:
    # a batch of one review at the end).
    g = torch.Generator().manual_seed(17)
    inputs = torch.randint(1, 19, (11, 8), generator=g)
    lengths = torch.randint(1, 9, (11,), generator=g)
    for row in range(11):
        inputs[row, int(lengths[row]) :] = 0
    # Weights in, never out: the grader chooses the weights (seeded, head scaled by 20 so the classes are
    # well separated) and the kernel loads them; a kernel that forges its report can match only by
    # returning the classes a correct predict_classes gives for these weights. With seed 21 the expected
    # classes are 0, 1, 2, 2, 0, 1, 2, 2, 0, 0, 2: no constant answer matches.
    reference = reference_model(19, 2, 12, 1, 3, seed=21)
    with torch.no_grad():
        for p in reference.head.parameters():
            p.mul_(20.0)
    state = {k: v.clone() for k, v in reference.state_dict().items()}
    out = student.run(
        "model = Model(19, 2, 12, 1, 3, dropout=0.3)\n"
        "model.load_state_dict(state)\n"
        "model.train()\n"
        "try:\n"
        "    result = {'pred': predict_classes(model, inputs, lengths, batch_size=5)}\n"
        "except Exception:\n"
        "    result = None\n",
        stand_ins=STAND_INS,
        inputs=inputs,
        lengths=lengths,
        state=state,
    )
    expect(
        out is not None,
        "predict_classes raised an error on 11 reviews in batches of 5, whose last batch holds a single review: "
        "keep the batch axis (argmax(dim=-1) without squeeze(); torch.cat the batches' predictions)",
    )
    pred = expect_shape(out["pred"], (11,), "predict_classes for 11 reviews")
    expect(not pred.dtype.is_floating_point, f"predictions should be integer class ids; got dtype {pred.dtype}")
    with torch.no_grad():
        expected = reference(inputs, causal_mask(8), lengths).argmax(dim=-1)
    wrong = int((pred.long() != expected).sum())
    expect(
        wrong == 0,
        f"{wrong} of 11 predictions differ from the arg-max class of the model's scores at the "
        f"last real token (evaluation mode, causal mask)",
    )


SPY = """
seen = []
class Spy(Model):
    def forward(self, src, src_mask=None, lengths=None):
        scores = super().forward(src, src_mask, lengths)
        seen.append({'src': src.clone(), 'training': self.training, 'mask': src_mask,
                     'lengths': lengths, 'scores': scores.detach().clone()})
        return scores
model = Spy(ntoken, 2, 8, 1, 3, dropout=0.1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
losses = []
for batch_size in batch_sizes:
    model.eval()   # as predict_classes may leave it: train_classifier must switch training mode on by itself
    losses.append(train_classifier(model, inputs, lengths, labels, optimizer, batch_size=batch_size, progress=False))
result = {'calls': seen, 'losses': losses}
"""
ROWS = 10
BATCH_SIZES = (4, 3)  # 4 + 4 + 2, then 3 + 3 + 3 + 1: a batch of one review
CALLS = [3, 4]


def _check_call(call, inputs, lengths):
    """The rows a call of the model saw (read from their first tokens), after checking its batch."""
    src = call["src"]
    expect(
        isinstance(src, torch.Tensor) and src.dim() == 2 and 1 <= src.size(0) and src.size(1) <= inputs.size(1),
        "train_classifier must call the model with a (batch, seq) batch of the reviews",
    )
    rows = src[:, 0].long() - 1
    expect(bool(((rows >= 0) & (rows < ROWS)).all()), "train_classifier called the model on rows that are no review")
    width = src.size(1)
    # Dynamic padding is allowed: a batch cut to its longest review, with the causal mask of that width.
    expect(
        width >= int(lengths[rows].max()) and torch.equal(src.long(), inputs[rows, :width]),
        "train_classifier must pass the reviews' tokens as they are (right-padded, cut no shorter than the "
        "batch's longest review)",
    )
    mask = oracles.as_additive(call["mask"])
    expect(
        mask is not None and tuple(mask.shape) == (width, width) and torch.equal(mask, causal_mask(width)),
        f"train_classifier must call the model with the causal mask for the batch's width ({width} x {width})",
    )
    expect(
        isinstance(call["lengths"], torch.Tensor) and torch.equal(call["lengths"].long(), lengths[rows]),
        "train_classifier must pass each batch's own lengths to the model, in the batch's row order",
    )
    return rows


@question("finetune_tests")
@behaviour("train_classifier", "a new random order every epoch", mutant="train_classifier_in_order")
@behaviour(
    "train_classifier",
    "randomness: the order drawn from torch's global generator, uniformly (not the stored order)",
    mutant="train_classifier_in_order",
    kind="randomness",
)
@behaviour(
    "train_classifier",
    "state across calls: each call draws a new order, the generator's state moving on (no re-seeding)",
    mutant="train_classifier_reseeds_each_call",
    kind="state",
)
@behaviour(
    "train_classifier",
    "returns a Python float, not a loss tensor holding the graph of every batch past the call (#44 item 4)",
    mutant="train_classifier_returns_loss_tensor",
    kind="state",
)
@behaviour(
    "train_classifier",
    "exact boundary: the batch that starts at len(inputs) - batch_size or later is trained on",
    mutant="train_classifier_stops_one_batch_early",
    kind="boundary",
)
@behaviour(
    "train_classifier",
    "a last batch of one review (10 reviews in batches of 3) is trained on and weighs one review",
    mutant="train_classifier_skips_short_last_batch",
    kind="batch-of-one",
)
@behaviour("train_classifier", "training mode, even after predict_classes", mutant="train_classifier_never_calls_train")
@behaviour(
    "train_classifier",
    "the mean loss per review, the short last batch by its size",
    mutant="train_classifier_mean_over_batches",
)
def test_train_classifier_shuffles_trains_and_averages_per_review(student):
    # 10 reviews, an epoch in batches of 4 (4 + 4 + 2) then one in batches of 3 (3 + 3 + 3 + 1). Row r starts
    # with token r + 1, so the first token of each row the model sees tells which review it is. The kernel
    # reports what a subclass of the reference Model saw on each call; forging that report gains at most this
    # point.
    # Shuffling: torch.randperm gives each of the 10! orders with equal probability, so a correct loop
    # visits the rows in their stored order in an epoch with probability 1/10! = 2.8e-7, and repeats the
    # first epoch's order in the second with the same probability: the check below fails a correct loop
    # about once in 1.8 million gradings.
    inputs, lengths, labels = _reviews()
    out = student.run(
        checks.single_threaded(SPY),
        stand_ins=STAND_INS,
        ntoken=19,
        inputs=inputs,
        lengths=lengths,
        labels=labels,
        batch_sizes=list(BATCH_SIZES),
    )
    calls, losses = out["calls"], out["losses"]
    expect(
        isinstance(calls, list) and len(calls) == sum(CALLS),
        f"an epoch of train_classifier over 10 reviews in batches of 4, then one in batches of 3, should call the "
        f"model 3 + 4 = {sum(CALLS)} times (each epoch's short last batch included: 2 reviews, then 1); got "
        f"{len(calls) if isinstance(calls, list) else kernel_value(calls)}",
    )
    orders = []
    for epoch, size in enumerate(BATCH_SIZES):
        epoch_calls = calls[sum(CALLS[:epoch]) : sum(CALLS[: epoch + 1])]
        expect(
            all(call["training"] is True for call in epoch_calls),
            "train_classifier called the model in evaluation mode; put it in training mode first (dropout "
            "must be on while it learns)",
        )
        order = torch.cat([_check_call(call, inputs, lengths) for call in epoch_calls])
        expect(
            sorted(order.tolist()) == list(range(ROWS)),
            "in one epoch train_classifier should visit every review exactly once",
        )
        orders.append(order.tolist())
        # The mean loss per review: each call's cross-entropy summed over its rows, over the 10 reviews.
        total = sum(
            F.cross_entropy(call["scores"].float(), labels[call["src"][:, 0].long() - 1], reduction="sum").item()
            for call in epoch_calls
        )
        loss = losses[epoch] if isinstance(losses, list) and len(losses) == len(BATCH_SIZES) else None
        expect(
            not isinstance(loss, torch.Tensor),
            "train_classifier should return the mean loss as a Python float; got a tensor: add loss.item() to your "
            "total, since a loss tensor holds the graph of its batches alive",
        )
        expect(
            isinstance(loss, (int, float))
            and not isinstance(loss, bool)
            and math.isclose(loss, total / ROWS, rel_tol=1e-4, abs_tol=1e-6),
            f"epoch {epoch + 1} (batches of {size}): train_classifier should return the mean loss per review over "
            f"the epoch ({total / ROWS:.4f} from the scores your loop computed; the last batch holds "
            f"{ROWS % size} review{'s' if ROWS % size > 1 else ''}, not {size})",
        )
    expect(
        orders[0] != list(range(ROWS)) or orders[1] != list(range(ROWS)),
        "train_classifier visits the reviews in their stored order; shuffle them each epoch (torch.randperm)",
    )
    expect(
        orders[0] != orders[1],
        "train_classifier visited the reviews in the same order in both epochs; draw a "
        "new random order (torch.randperm) every epoch",
    )


REPLAY = """
seen = []
class Spy(Model):
    def forward(self, src, src_mask=None, lengths=None):
        seen.append(src[:, 0].clone())
        return super().forward(src, src_mask, lengths)
model = Spy(ntoken, 2, 8, 1, 3, dropout=0.0)
model.load_state_dict(state)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
for batch_size in batch_sizes:
    train_classifier(model, inputs, lengths, labels, optimizer, batch_size=batch_size, progress=False)
result = {'rows': seen, 'state': model.state_dict()}
"""


def _reviews():
    """10 reviews of up to 6 tokens; row r starts with token r + 1, so a batch's first tokens name its rows."""
    g = torch.Generator().manual_seed(23)
    lengths = torch.randint(2, 7, (ROWS,), generator=g)
    inputs = torch.randint(ROWS + 1, 19, (ROWS, 6), generator=g)
    inputs[:, 0] = torch.arange(1, ROWS + 1)
    for row in range(ROWS):
        inputs[row, int(lengths[row]) :] = 0
    return inputs, lengths, torch.randint(3, (ROWS,), generator=g)


@question("finetune_tests")
@behaviour(
    "train_classifier",
    "each batch's SGD step replayed here, checked to 0.1% of each tensor's own movement (the steps' effect)",
    mutant="train_classifier_no_zero_grad",
    kind="step-tolerance",
)
def test_train_classifier_steps_match_the_batches_it_formed(student):
    # The grader chooses the weights (no dropout) and reads which reviews each call of the model held; the
    # same batches, in the same order, are then stepped here on the reference (mean cross-entropy over the
    # batch, zero_grad, backward, SGD lr 0.5 step), so any random order a correct loop draws is replayed.
    # Tolerance from the size of the effect: over the seven steps each parameter tensor of the reference
    # moves by at least 0.02 (its largest entry, seeds 0..9) and each is compared to 0.1% of its own movement
    # (plus 1e-7). A correct loop that cuts each batch to its longest review (variant
    # train_classifier_dynamic_padding) ends within 3e-6 of the movement, float32 noise; a loop that keeps
    # earlier batches' gradients (no zero_grad) or backpropagates the summed loss ends a step's worth away.
    inputs, lengths, labels = _reviews()
    start = {k: v.clone() for k, v in reference_model(19, 2, 8, 1, 3, seed=29).state_dict().items()}
    out = student.run(
        checks.single_threaded(REPLAY),
        stand_ins=STAND_INS,
        ntoken=19,
        inputs=inputs,
        lengths=lengths,
        labels=labels,
        state=start,
        batch_sizes=list(BATCH_SIZES),
    )
    rows = out["rows"]
    expect(
        isinstance(rows, list) and all(isinstance(r, torch.Tensor) and r.dim() == 1 for r in rows),
        "train_classifier must call the model with (batch, seq) batches of the reviews",
    )
    model = reference_model(19, 2, 8, 1, 3, state=start).train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    mask = causal_mask(inputs.size(1))
    with oracles.one_thread():
        for first in rows:
            pick = first.long() - 1
            expect(
                bool(((pick >= 0) & (pick < ROWS)).all()),
                "train_classifier called the model on rows that are no review",
            )
            loss = F.cross_entropy(model(inputs[pick], mask, lengths[pick]), labels[pick])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    expected = model.state_dict()
    after = out["state"]
    expect(isinstance(after, dict) and not key_problems(after, expected), "unexpected model state after training")
    off = [
        name
        for name, tensor in expected.items()
        if (after[name].float() - tensor).abs().max().item() > 1e-3 * (tensor - start[name]).abs().max().item() + 1e-7
    ]
    expect(
        not off,
        f"after train_classifier's {len(rows)} steps, {len(off)} of the model's {len(expected)} tensors differ from "
        f"the same steps taken here on the batches your loop formed (by more than 0.1% of how far the steps move "
        f"them): for each batch compute the mean cross-entropy over its reviews, zero the gradients, backward, "
        f"and step once",
    )


@question("finetune_tests")
@behaviour("predict_classes", "the fine-tuned classifier reaches the accuracy bar", mutant="predict_argmax_wrong_dim")
@behaviour(
    "predict_classes",
    "one prediction per held-out review, the last short batch included",
    mutant="predict_classes_stops_one_batch_early",
)
@behaviour(
    "train_classifier",
    "fine-tuning reaches the accuracy bar (gradients zeroed before each step)",
    mutant="train_classifier_no_zero_grad",
)
def test_pretrained_classifier_accuracy(student):
    # The grader pre-trains a tiny language model on unlabelled synthetic reviews (vocabulary 30, nhid 32,
    # 2 heads, 1 layer) with the reference code; the student's train_classifier then fine-tunes a
    # 2-class Model built on that base (128 labelled one-sentence reviews, 5 epochs, Adam lr 2e-3) and
    # predict_classes labels 300 held-out reviews. Labels of those 300 never leave the grader.
    # Calibration (reference, seeds 0..19): accuracy 1.000 in every run. Bar: 0.85 (255 of 300).
    train_x, train_len, train_y = labelled_reviews(128, seed=6)
    test_x, test_len, test_y = labelled_reviews(300, seed=7)
    out = student.run(
        checks.single_threaded(
            "model = Model(ntoken, 2, 32, 1, 2, dropout=0.0)\n"
            "load_pretrained_base(model, lm_state)\n"
            "optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)\n"
            "for epoch in range(5):\n"
            "    train_classifier(model, train_x, train_len, train_y, optimizer, batch_size=16, progress=False)\n"
            "result = predict_classes(model, test_x, test_len)"
        ),
        stand_ins=STAND_INS,
        ntoken=REVIEW_NTOKEN,
        lm_state=pretrained_review_lm(),
        train_x=train_x,
        train_len=train_len,
        train_y=train_y,
        test_x=test_x,
        test_len=test_len,
        timeout=30,
    )
    pred = expect_shape(out, (300,), "predict_classes for 300 held-out reviews")
    accuracy = (pred.long() == test_y).float().mean().item()
    expect(
        accuracy >= 0.85,
        f"after fine-tuning with train_classifier the held-out accuracy should reach 0.85; got {accuracy:.3f}",
    )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "train_classifier",
        "dynamic padding: a batch cut to its longest review, with the mask of that width",
        "The skeleton allows it (the scores are the same) and the test checks the mask against each batch's width; variant train_classifier_dynamic_padding keeps full marks.",
    ),
    (
        "train_classifier",
        "how the order is drawn (randperm, a DataLoader)",
        "Any uniformly random order is accepted; variant train_classifier_dataloader keeps full marks.",
    ),
    # The kinds every definition answers for (autograder/README.md, Kinds every definition answers for).
    (
        "train_classifier",
        "validation order",
        "It checks no argument and has no special case: every batch, the short last one included, takes the same steps.",
        "validation-order",
    ),
    ("train_classifier", "a sort's ties", "It sorts and ranks nothing; the permutation it draws has no ties.", "ties"),
    (
        "train_classifier",
        "degenerate values",
        "No value is special to it: a batch of one review, the smallest batch, is checked under kind batch-of-one, and reviews of every length from 2 to the full row go through the same index.",
        "degenerate",
    ),
    (
        "train_classifier",
        "device of what it makes",
        "Grading has no second device, and the 'meta' device cannot stand in for one: the loop must return a float, and .item() needs data, which meta tensors do not hold.",
        "device",
    ),
    (
        "train_classifier",
        "hyper-parameters that are not whole numbers",
        "Its one hyper-parameter, batch_size, is a count; the learning rate lives in the optimizer it is given.",
        "non-integer",
    ),
    (
        "predict_classes",
        "validation order",
        "It checks no argument and has no special case: every batch, the short last one included, is predicted alike.",
        "validation-order",
    ),
    (
        "predict_classes",
        "a sort's ties",
        "It ranks by torch.argmax, which the skeleton names and which takes the first of equal best scores; scores of a model with the grader's weights are never exactly equal.",
        "ties",
    ),
    (
        "predict_classes",
        "degenerate values",
        "No value is special to it: a batch of one review, the smallest batch, is checked under kind batch-of-one, and reviews of length 1 to the full row are among the test's.",
        "degenerate",
    ),
    (
        "predict_classes",
        "device of what it makes",
        "Its answer must be on the CPU whatever the model's device, and the 'meta' device cannot stand in for a GPU here: nn.TransformerEncoder reads its mask's values, and a meta tensor cannot be copied to the CPU.",
        "device",
    ),
    (
        "predict_classes",
        "hyper-parameters that are not whole numbers",
        "Its one hyper-parameter, batch_size, is a count.",
        "non-integer",
    ),
    ("predict_classes", "optimisation steps", "It takes no optimisation step: it only predicts.", "step-tolerance"),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    (
        "train_classifier",
        "model",
        "Model(19, 2, 8, 1, 3) with dropout 0.1 and with the grader's weights and no dropout, Model(30, 2, 32, 1, 2) on a pre-trained base",
        None,
    ),
    ("train_classifier", "inputs", "(10, 6), (128, 16)", None),
    ("train_classifier", "lengths", "(10,), (128,)", None),
    ("train_classifier", "labels", "3 classes, 2 classes", None),
    ("train_classifier", "optimizer", "SGD, Adam", None),
    ("train_classifier", "batch_size", "4, 3 (a last batch of one), 16", None),
    (
        "train_classifier",
        "progress",
        "False",
        "The bar only displays; graded runs pass False, as the notebook's own cells do when grading.",
    ),
    (
        "predict_classes",
        "model",
        "Model(19, 2, 12, 1, 3) with dropout 0.3 in training mode, the fine-tuned Model(30, 2, 32, 1, 2)",
        None,
    ),
    ("predict_classes", "inputs", "(11, 8), (300, 16)", None),
    ("predict_classes", "lengths", "(11,), (300,)", None),
    ("predict_classes", "batch_size", "5 (a last batch of one), 64", None),
]
