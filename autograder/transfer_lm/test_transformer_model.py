"""transformer_model_tests: TransformerBase, ClassificationHead and Model against a reference model.

Tiny odd-sized configuration: vocabulary 37, nhid 12, 3 heads, 2 layers, 5 classes, batch 3, seq 7.
The student's PositionalEncoding is replaced by the correct one for these tests, and the mask is
PyTorch's own, sent as an input, so only this question's code is under test.
"""

import functools
import math

import torch
import torch.nn.functional as F

from assignments.grading.testkit import (
    behaviour,
    expect,
    expect_close,
    expect_shape,
    kernel_shape,
    kernel_value,
    question,
)
from autograder.transfer_lm import oracles
from autograder.transfer_lm.checks import key_problems
from autograder.transfer_lm.oracles import causal_mask, reference_model

NTOKEN, NHEAD, NHID, NLAYERS, NCLASSES, BATCH, SEQ = 37, 3, 12, 2, 5, 3, 7
STAND_INS = ("PositionalEncoding",)


def _inputs():
    g = torch.Generator().manual_seed(5)
    src = torch.randint(1, NTOKEN, (BATCH, SEQ), generator=g)
    lengths = torch.tensor([SEQ, 3, 1])
    return src, lengths


# Weights in, never out: the forward checks load weights the grader chose (reference_model with a seed)
# into the student's Model under the skeleton's parameter names, and compare outputs with the reference
# running the same weights here. The kernel reports its parameter names and shapes only for the structure
# check, which compares them with the reference's; no reported number feeds an expected value.
BUILD = (
    "model = Model(ntoken, nhead, nhid, nlayers, nclasses, dropout=0.1)\n"
    "shapes = {name: list(tensor.shape) for name, tensor in model.state_dict().items()}\n"
    "try:\n"
    "    model.load_state_dict(state)\n"
    "    loaded = True\n"
    "except (RuntimeError, KeyError, TypeError):\n"
    "    loaded = False\n"
    "model.eval()\n"
)
NOT_LOADED = (
    "the grader could not load weights into your Model: its state dict names or shapes differ from the "
    "skeleton's (embedding, pos_encoder, encoder, head.decoder)"
)


def _grader_state(nclasses):
    return {
        k: v.clone() for k, v in reference_model(NTOKEN, NHEAD, NHID, NLAYERS, nclasses, seed=31).state_dict().items()
    }


def _run(student, nclasses, extra=""):
    src, lengths = _inputs()
    code = BUILD + (
        "with torch.no_grad():\n"
        "    full = model(src, mask)\n"
        "    last = model(src, mask, lengths)\n"
        "    one = model(src[:1], mask, lengths[1:2])\n"
        "one_layer = [name for name in Model(ntoken, nhead, nhid, 1, nclasses).state_dict()]\n"
        "result = {'shapes': shapes, 'loaded': loaded, 'full': full, 'last': last, 'one': one, 'one_layer': one_layer}\n"
        + extra
    )
    return student.run(
        code,
        stand_ins=STAND_INS,
        ntoken=NTOKEN,
        nhead=NHEAD,
        nhid=NHID,
        nlayers=NLAYERS,
        nclasses=nclasses,
        src=src,
        lengths=lengths,
        mask=causal_mask(SEQ),
        state=_grader_state(nclasses),
        copies=COPIES,
    )


# Training mode, in two parts that hold whatever order a correct model draws its dropout masks in (a
# sequence-first encoder inside, as in PyTorch's tutorial, draws them in another order than the reference):
# - dropout 0: the grader's weights in training mode must give the reference's scores exactly, so `dropout`
#   reaches the positional encoding and every layer, and nothing else drops out at a rate of its own;
# - dropout 0.3: the 3 rows of src repeated COPIES times, each row with independent masks; per row, the
#   mean squared distance of its scores from the eval-mode scores. Its mean over the rows must match the
#   reference's (REFERENCE_COPIES per source row, drawn here) within 5 standard deviations (below).
TRAINING = (
    "exact = Model(ntoken, nhead, nhid, nlayers, nclasses, dropout=0.0)\n"
    "exact.load_state_dict(state)\n"
    "exact.train()\n"
    "noisy = Model(ntoken, nhead, nhid, nlayers, nclasses, dropout=0.3)\n"
    "noisy.load_state_dict(state)\n"
    "noisy.train()\n"
    "with torch.no_grad():\n"
    "    result['no_dropout'] = exact(src, mask)\n"
    "    result['training'] = noisy(src.repeat(copies, 1), mask)\n"
)
COPIES, REFERENCE_COPIES = 200, 600


def _spread(scores, eval_scores, copies):
    """Per row of ``scores`` (the rows of src repeated ``copies`` times): mean squared distance from eval mode."""
    return ((scores.double() - eval_scores.double().repeat(copies, 1, 1)) ** 2).mean(dim=(1, 2))


@functools.lru_cache(maxsize=1)
def _reference_spread(nclasses):
    """(mean, standard deviation) of the per-row spread of the reference in training mode, dropout 0.3."""
    src, _ = _inputs()
    eval_scores = _reference_scores(nclasses)
    with torch.random.fork_rng():
        torch.manual_seed(47)
        model = oracles.reference.Model(NTOKEN, NHEAD, NHID, NLAYERS, nclasses, 0.3)
        model.load_state_dict(_grader_state(nclasses))
        model.train()
        with torch.no_grad():
            spread = _spread(model(src.repeat(REFERENCE_COPIES, 1), causal_mask(SEQ)), eval_scores, REFERENCE_COPIES)
    return spread.mean().item(), spread.std().item()


def _reference_scores(nclasses):
    src, _ = _inputs()
    with torch.no_grad():
        return reference_model(NTOKEN, NHEAD, NHID, NLAYERS, nclasses, state=_grader_state(nclasses))(
            src, causal_mask(SEQ)
        )


@question("transformer_model_tests")
@behaviour("ClassificationHead", "the layer is named decoder (weights load by name)", mutant="model_head_layer_renamed")
@behaviour(
    "Model",
    "a batch of one review keeps its batch axis: shape (1, nclasses)",
    mutant="model_squeeze_drops_batch_of_one",
    kind="batch-of-one",
)
def test_parameter_names_shapes_and_outputs(student):
    out = _run(student, NCLASSES)
    expected = reference_model(NTOKEN, NHEAD, NHID, NLAYERS, NCLASSES).state_dict()
    problems = key_problems(out["shapes"], expected)
    expect(
        not problems,
        "the model's state dict names differ from the ones the skeleton asks for "
        f"(embedding, pos_encoder, encoder, head.decoder): {problems}",
    )
    for name, tensor in expected.items():
        got = out["shapes"][name]
        expect(
            isinstance(got, (list, tuple)) and tuple(got) == tuple(tensor.shape),
            f"state dict entry {name} should have shape {tuple(tensor.shape)}; got {kernel_value(got)}",
        )
    one_layer = key_problems(
        dict.fromkeys(out["one_layer"]), reference_model(NTOKEN, NHEAD, NHID, 1, NCLASSES).state_dict()
    )
    expect(not one_layer, f"Model(..., nlayers=1, ...) should hold exactly one encoder layer: {one_layer}")
    expect_shape(out["full"], (BATCH, SEQ, NCLASSES), "model(src, mask) with src of shape (batch 3, seq 7)")
    expect_shape(out["last"], (BATCH, NCLASSES), "model(src, mask, lengths)")
    one = out["one"]
    expect(
        tuple(getattr(one, "shape", ())) == (1, NCLASSES),
        f"for a batch of one review model(src, mask, lengths) should return shape (1, {NCLASSES}); got "
        f"{kernel_shape(one)}: squeeze only the dimension you added (squeeze(1)), not every "
        f"dimension of size 1",
    )


@question("transformer_model_tests")
@behaviour("TransformerBase", "embeddings scaled by sqrt(nhid)", mutant="model_no_embedding_scale")
@behaviour("TransformerBase", "positional encoding applied", mutant="model_no_positional_encoding")
@behaviour(
    "TransformerBase",
    "training mode, dropout 0: `dropout` reaches the positional encoding and every layer, and nothing else drops out (exact)",
    mutant="model_layer_default_dropout",
)
@behaviour(
    "TransformerBase",
    "training mode, dropout 0.3: as much dropout as the reference (mean squared spread from eval mode over 600 rows, 5 sigma)",
    mutant="model_dropout_before_head",
)
@behaviour(
    "TransformerBase",
    "randomness: in training mode every dropout site draws at the model's rate, from torch's global generator",
    mutant="model_layer_default_dropout",
    kind="randomness",
)
@behaviour(
    "TransformerBase",
    "degenerate rate: dropout 0 in training mode keeps everything, so the scores equal the eval-mode ones exactly",
    mutant="model_layer_default_dropout",
    kind="degenerate",
)
@behaviour(
    "TransformerBase",
    "a factor that is not a whole number: sqrt(nhid) for nhid 12 is 3.46, not 3",
    mutant="model_embedding_scale_integer_sqrt",
    kind="non-integer",
)
@behaviour(
    "Model",
    "randomness: no dropout of its own beyond the base's (dropout 0.3, mean squared spread over 600 rows)",
    mutant="model_dropout_before_head",
    kind="randomness",
)
def test_language_model_forward_matches_reference(student):
    # The grader's weights are loaded into the student's model and the reference; both run the same batch
    # in eval mode.
    out = _run(student, NTOKEN, TRAINING)
    expect(out["loaded"] is True, NOT_LOADED)
    expected = _reference_scores(NTOKEN)
    expect_close(
        out["full"],
        expected,
        "language-model scores (embedding * sqrt(nhid), plus positions, through the encoder, then the head)",
        rtol=1e-4,
        atol=1e-4,
    )
    expect_close(
        out["no_dropout"],
        expected,
        "language-model scores in training mode with dropout 0 (pass `dropout` to the positional encoding and "
        "to every encoder layer, whose own default is 0.1, and add no dropout of your own)",
        rtol=1e-4,
        atol=1e-4,
    )
    # With the grader's weights the reference's per-row spread has mean 0.0278 and standard deviation 0.0066
    # (over 1,800 rows). The difference of two means over 600 and 1,800 independent rows has standard deviation
    # 0.0066 * sqrt(1/600 + 1/1800) = 0.00031, so the bound, 5 of them, is 0.0016 (6% of the mean): a correct
    # model, in any draw order, fails it with probability below 1e-6. Layers left at the default 0.1 give
    # 0.0237, dropout before the head 0.045, no dropout on the positions 0.0096.
    training = expect_shape(out["training"], (BATCH * COPIES, SEQ, NTOKEN), "scores of src repeated 200 times")
    mean, sd = _reference_spread(NTOKEN)
    bound = 5 * sd * math.sqrt(1 / (BATCH * COPIES) + 1 / (BATCH * REFERENCE_COPIES))
    spread = _spread(training, expected, COPIES).mean().item()
    expect(
        math.isfinite(spread) and abs(spread - mean) <= bound,
        f"in training mode with dropout 0.3 the scores scatter around their eval-mode values by a mean square of "
        f"{spread:.4f}; a correct model scatters by {mean:.4f} (allowed {bound:.4f}), whatever order it draws its "
        + (
            "masks in: less means dropout is missing somewhere (the positional encoding and every layer get `dropout`)"
            if spread < mean
            else "masks in: more means dropout where the model has none (before the head, on the embeddings) or "
            "at a higher rate"
        ),
    )


@question("transformer_model_tests")
@behaviour("Model", "classification reads position lengths[b] - 1", mutant="head_first_position")
@behaviour(
    "Model",
    "exact boundary: the last real token is at lengths[b] - 1, not at lengths[b] (the first pad), for lengths 3 and 1",
    mutant="model_reads_first_pad",
    kind="boundary",
)
def test_classifier_reads_last_real_position(student):
    # Independent of the rest of the model: with lengths, the scores must equal the per-position scores
    # of the same model taken at position lengths[b] - 1. The grader's weights are loaded so that the
    # positions differ (a model whose scores are the same at every position would hide a wrong position).
    out = _run(student, NCLASSES)
    expect(out["loaded"] is True, NOT_LOADED)
    full = expect_shape(out["full"], (BATCH, SEQ, NCLASSES), "model(src, mask)")
    last = expect_shape(out["last"], (BATCH, NCLASSES), "model(src, mask, lengths)")
    _, lengths = _inputs()
    # With the grader's weights the reference's scores differ from position to position by up to 0.46;
    # scores that do not vary would hide which position was read.
    spread = (full - full[:, :1]).abs().max().item()
    expect(
        spread > 1e-3,
        "the model's scores are the same at every position, so which position the "
        "classifier reads cannot be told; the scores must depend on the tokens",
    )
    picked = full[torch.arange(BATCH), lengths - 1]
    for row in range(BATCH):
        expect(
            torch.allclose(last[row], picked[row], atol=1e-5),
            f"row {row} (length {int(lengths[row])}): the classification scores are not the head applied "
            f"at the last real token, position {int(lengths[row]) - 1}",
        )


@question("transformer_model_tests")
@behaviour("TransformerBase", "src_mask passed to the encoder", mutant="model_ignores_src_mask")
@behaviour(
    "ClassificationHead", "init_weights: uniform in [-0.1, 0.1], zero bias", mutant="head_init_uniform_without_bounds"
)
@behaviour(
    "ClassificationHead",
    "randomness: init_weights draws the decoder's weights from torch's global generator, uniform in [-0.1, 0.1]",
    mutant="head_init_uniform_without_bounds",
    kind="randomness",
)
def test_causal_and_uncertain_at_initialization(student):
    # Causality: change tokens 4..6 and the scores at positions 0..3 must not move (tolerance 1e-5); the
    # grader's weights are loaded so that a model which ignores its input cannot pass. The loss at
    # initialization necessarily uses the student's own initialization: it is a report checked against a
    # fixed band around ln(97), never used to build an expected value.
    src, _ = _inputs()
    changed = src.clone()
    changed[:, 4:] = changed[:, 4:] % (NTOKEN - 1) + 1
    g = torch.Generator().manual_seed(9)
    tokens = torch.randint(1, 97, (8, 20), generator=g)
    out = student.run(
        "model = Model(ntoken, nhead, nhid, nlayers, ntoken, dropout=0.1).eval()\n"
        "model.load_state_dict(state)\n"
        "with torch.no_grad():\n"
        "    a, b = model(src, mask), model(changed, mask)\n"
        "    big = Model(97, 2, 24, 2, 97, dropout=0.1).eval()\n"
        "    init = big(tokens, mask20)\n"
        "result = {'a': a, 'b': b, 'init': init}",
        stand_ins=STAND_INS,
        ntoken=NTOKEN,
        nhead=NHEAD,
        nhid=NHID,
        nlayers=NLAYERS,
        src=src,
        changed=changed,
        mask=causal_mask(SEQ),
        tokens=tokens,
        mask20=causal_mask(20),
        state=_grader_state(NTOKEN),
    )
    a = expect_shape(out["a"], (BATCH, SEQ, NTOKEN), "model(src, mask)")
    b = expect_shape(out["b"], (BATCH, SEQ, NTOKEN), "model(src, mask)")
    # A model that ignores its input is trivially causal: the changed tokens must move their own scores
    # (by up to 0.26 on the reference with the grader's weights).
    later = (a[:, 4:] - b[:, 4:]).abs().max().item()
    expect(
        later > 1e-3,
        "the scores at positions 4..6 did not change when tokens 4..6 changed; the model's "
        "scores must depend on its input",
    )
    moved = (a[:, :4] - b[:, :4]).abs().max().item()
    expect(
        moved < 1e-5,
        f"the scores at positions 0..3 changed by {moved:.3g} when only tokens 4..6 changed; "
        "the model must not see the future (pass src_mask to the encoder)",
    )
    # Loss at initialization on random targets: ln(97) = 4.575. The reference gives 4.58-4.65 over seeds
    # 0..19; PyTorch's default initialization gives about ln(97) + 0.2. Allowed: within 0.5 nats.
    init = expect_shape(out["init"], (8, 20, 97), "scores of Model(97, 2, 24, 2, 97) for (batch 8, seq 20)")
    targets = torch.randint(1, 97, (8, 20), generator=g)
    loss = F.cross_entropy(init.float().flatten(0, 1), targets.flatten()).item()
    expect(
        math.isfinite(loss) and abs(loss - math.log(97)) < 0.5,
        f"a freshly built language model should be close to a uniform guess: loss near ln(97) = 4.57 "
        f"(within 0.5); got {loss:.3f}",
    )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "TransformerBase",
        "randomness: the order the dropout masks are drawn in",
        "No test replays masks, so any order is accepted; variant model_sequence_first (sequence-first layers, as PyTorch's tutorial) keeps full marks.",
    ),
    ("Model", "dtype and device", "Grading runs on the CPU in float32, where moving lengths to the device is a no-op."),
    # The kinds every definition answers for (autograder/README.md, Kinds every definition answers for).
    (
        "TransformerBase",
        "validation order",
        "It checks no argument and has no special case: src_mask is required and passes to the encoder.",
        "validation-order",
    ),
    ("TransformerBase", "exact boundaries", "It compares nothing with a threshold.", "boundary"),
    ("TransformerBase", "a sort's ties", "It sorts and ranks nothing.", "ties"),
    (
        "TransformerBase",
        "state across calls",
        "Its mode is its only state (eval and training outputs are both checked); forward keeps nothing from one call to the next.",
        "state",
    ),
    (
        "TransformerBase",
        "device of what it makes",
        "forward makes no tensor of its own (the embedding, the positional buffer and the encoder follow the model), and the 'meta' device cannot stand in for a GPU here: nn.TransformerEncoder reads its mask's values to detect a causal mask.",
        "device",
    ),
    (
        "TransformerBase",
        "optimisation steps",
        "It takes no optimisation step; train_lm's tests step the stand-in.",
        "step-tolerance",
    ),
    (
        "TransformerBase",
        "a batch of one",
        "forward reshapes nothing (nn modules keep the batch axis), and a batch of one review, src (1, 7), runs through it in test_parameter_names_shapes_and_outputs.",
        "batch-of-one",
    ),
    (
        "ClassificationHead",
        "validation order",
        "It checks no argument and has no special case.",
        "validation-order",
    ),
    ("ClassificationHead", "exact boundaries", "It compares nothing with a threshold.", "boundary"),
    ("ClassificationHead", "a sort's ties", "It sorts and ranks nothing.", "ties"),
    (
        "ClassificationHead",
        "degenerate values",
        "It has no branch on a value: one nn.Linear over the last axis, whatever nclasses is (5, 37 and 97 in the tests).",
        "degenerate",
    ),
    (
        "ClassificationHead",
        "state across calls",
        "forward keeps nothing from one call to the next; init_weights only re-draws the weights it owns.",
        "state",
    ),
    (
        "ClassificationHead",
        "device of what it makes",
        "forward makes no tensor of its own: its nn.Linear follows the module.",
        "device",
    ),
    (
        "ClassificationHead",
        "hyper-parameters that are not whole numbers",
        "Its hyper-parameters are widths (nhid, nclasses), and the init bounds are fixed by the skeleton.",
        "non-integer",
    ),
    ("ClassificationHead", "optimisation steps", "It takes no optimisation step.", "step-tolerance"),
    (
        "ClassificationHead",
        "a batch of one",
        "forward is one nn.Linear over the last axis and reshapes nothing; hidden states of a batch of one review, (1, 12), go through it in test_parameter_names_shapes_and_outputs.",
        "batch-of-one",
    ),
    (
        "Model",
        "validation order",
        "Its one special case, lengths None or given, is a single branch whose two sides are both checked; it checks no argument.",
        "validation-order",
    ),
    ("Model", "a sort's ties", "It sorts and ranks nothing.", "ties"),
    (
        "Model",
        "degenerate values",
        "The index lengths - 1 has no branch on a value: the degenerate reviews, one token (lengths 1, position 0) and one that fills its row (lengths = seq), are both among test_classifier_reads_last_real_position's rows.",
        "degenerate",
    ),
    (
        "Model",
        "state across calls",
        "Its mode is its only state (eval and training outputs are both checked); forward keeps nothing from one call to the next.",
        "state",
    ),
    (
        "Model",
        "device of what it makes",
        "Its one tensor of its own, the row index, may sit on the CPU (PyTorch indexes a GPU tensor with CPU indices), and the 'meta' device cannot stand in for a GPU here: nn.TransformerEncoder reads its mask's values.",
        "device",
    ),
    (
        "Model",
        "hyper-parameters that are not whole numbers",
        "No arithmetic touches a hyper-parameter in Model itself: the rate goes unchanged to TransformerBase, whose non-integer row covers it.",
        "non-integer",
    ),
    (
        "Model",
        "optimisation steps",
        "It takes no optimisation step; train_lm's and train_classifier's tests step the stand-in.",
        "step-tolerance",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("TransformerBase", "ntoken", "37, 97", None),
    ("TransformerBase", "nhead", "3, 2", None),
    ("TransformerBase", "nhid", "12, 24", None),
    ("TransformerBase", "nlayers", "2, 1", None),
    ("TransformerBase", "dropout", "0.1 (evaluation mode), 0.0, 0.3 (training mode)", None),
    ("TransformerBase", "src", "(3, 7), (1, 7), (600, 7), (8, 20)", None),
    ("TransformerBase", "src_mask", "(7, 7), (20, 20)", None),
    ("ClassificationHead", "nhid", "12, 24", None),
    ("ClassificationHead", "nclasses", "5, 37, 97", None),
    ("ClassificationHead", "hidden", "(3, 7, 12), (3, 12), (1, 12), (8, 20, 24)", None),
    ("Model", "ntoken", "37, 97", None),
    ("Model", "nhead", "3, 2", None),
    ("Model", "nhid", "12, 24", None),
    ("Model", "nlayers", "2, 1", None),
    ("Model", "nclasses", "5, 37, 97", None),
    ("Model", "dropout", "0.1 (evaluation mode), 0.0, 0.3 (training mode)", None),
    ("Model", "src", "(3, 7), (1, 7), (600, 7), (8, 20)", None),
    ("Model", "src_mask", "(7, 7), (20, 20)", None),
    ("Model", "lengths", "None, [7, 3, 1], [3]", None),
]
