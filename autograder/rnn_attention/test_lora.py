"""LoRALinear and add_lora: the adapter starts as its frozen base (B zero, base frozen, A random within
nn.Linear's bound, base's dtype), computes base(x) + (alpha / rank) x A^T B^T with gradients for A and B only
(against a hand-derived formula, several ranks and alphas), and add_lora wraps exactly every layer's query and
value, leaves the model's output unchanged and lets an optimiser step move only the adapters and the head."""

import math

import torch
import torch.nn.functional as F

from assignments.grading.testkit import behaviour, expect, expect_close, question
from autograder.rnn_attention.inputs import OTHER_BERT, TINY_BERT, seeded, tiny_bert_batch, tiny_bert_state
from autograder.rnn_attention.oracles import bert_classifier_logits, lora_classifier_after_sgd_step, lora_linear

# The trainable parameters are found by shape (the skeleton allows nn.Parameter or bias-free nn.Linear layers
# under any names); every configuration below has rank x in_features != out_features x rank so A and B differ.
BUILD_LAYER = """
base = nn.Linear(n_in, n_out, bias=has_bias, dtype=getattr(torch, dtype))
base.load_state_dict(state)
lora = LoRALinear(base, rank, alpha)
def factor(shape):
    found = [p for p in lora.parameters() if p.requires_grad and tuple(p.shape) == shape]
    return found[0] if len(found) == 1 else None
A, B = factor((rank, n_in)), factor((n_out, rank))
"""

START = (
    BUILD_LAYER
    + """
with torch.no_grad():
    out = lora(x)
result = {"out": out, "trainable": sorted(tuple(p.shape) for p in lora.parameters() if p.requires_grad),
          "base_trainable": [p.requires_grad for p in base.parameters()], "weight": base.weight.detach().clone(),
          "A": None if A is None else A.detach().clone(), "dtypes": sorted({str(p.dtype) for p in lora.parameters()})}
"""
)

SET_AND_BACKWARD = (
    BUILD_LAYER
    + """
with torch.no_grad():
    A.copy_(a)
    B.copy_(b)
x = x.clone().requires_grad_(True)
out = lora(x)
(out * g).sum().backward()
result = {"out": out.detach(), "A_grad": A.grad, "B_grad": B.grad, "x_grad": x.grad,
          "base_grads": [p.grad is not None for p in base.parameters()]}
"""
)

# (in_features, out_features, bias, dtype, rank, alpha): ranks 1, 3, 8; alphas 1, 6, 16; one float64 layer and
# one without bias.
START_CASES = [(7, 5, True, "float32", 3, 6.0), (4, 9, False, "float64", 1, 1.0), (16, 12, True, "float32", 8, 16.0)]


def _layer_state(n_in, n_out, has_bias, dtype, generator):
    state = {"weight": seeded((n_out, n_in), generator, 1 / math.sqrt(n_in))}
    if has_bias:
        state["bias"] = seeded((n_out,), generator, 0.1)
    return {k: v.to(getattr(torch, dtype)) for k, v in state.items()}


@question("lora_tests")
@behaviour("LoRALinear", "the output equals the base layer's at initialisation (B zero)", mutant="lora_B_random_init")
@behaviour(
    "LoRALinear",
    "gradient flow: the base layer frozen (weight and bias requires_grad False, no gradient)",
    mutant="lora_base_not_frozen",
)
@behaviour(
    "LoRALinear", "dtype and device: A and B take the base weight's (a float64 layer)", mutant="lora_ignores_base_dtype"
)
def test_lora_linear_starts_as_its_frozen_base(student):
    generator = torch.Generator().manual_seed(31)
    for n_in, n_out, has_bias, dtype, rank, alpha in START_CASES:
        where = f"LoRALinear(nn.Linear({n_in}, {n_out}, bias={has_bias}) in {dtype}, rank={rank}, alpha={alpha:g})"
        state = _layer_state(n_in, n_out, has_bias, dtype, generator)
        x = seeded((2, 3, n_in), generator).to(getattr(torch, dtype))
        out = student.run(
            START, n_in=n_in, n_out=n_out, has_bias=has_bias, dtype=dtype, rank=rank, alpha=alpha, state=state, x=x
        )
        expect(
            not any(out["base_trainable"]),
            f"{where}: the wrapped layer's weight and bias must be frozen (requires_grad False)",
        )
        expect(
            out["trainable"] == sorted([(rank, n_in), (n_out, rank)]),
            f"{where}: the trainable parameters must be exactly A ({rank}, {n_in}) and B ({n_out}, {rank})",
        )
        expect(torch.equal(out["weight"], state["weight"]), f"{where}: the wrapped layer's weight must keep its values")
        expect(
            out["dtypes"] == [f"torch.{dtype}"] and out["out"].dtype == getattr(torch, dtype),
            f"{where}: A, B and the output must have the base layer's dtype {dtype}",
        )
        expect_close(
            out["out"],
            F.linear(x, state["weight"], state.get("bias")),
            f"{where}: the output at initialisation (B = 0: the base layer's output)",
        )
        bound = 1 / math.sqrt(n_in)
        a = out["A"].double()
        expect(
            a.abs().max() > 0 and a.abs().max() <= bound * (1 + 1e-6),
            f"{where}: A must start random, not zero, within +-1/sqrt(in_features) = {bound:.3g} "
            "(nn.init.kaiming_uniform_ with a=sqrt(5))",
        )


# (in, out, rank, alpha, x's shape): scalings 2, 0.25, 8 and 1.5; leading axes (3,), (2, 3), (1, 1) and (4,).
FORWARD_CASES = [
    (6, 5, 2, 4.0, (3, 6)),
    (5, 8, 4, 1.0, (2, 3, 5)),
    (9, 3, 1, 8.0, (1, 1, 9)),
    (8, 6, 4, 6.0, (4, 8)),
]


@question("lora_tests")
@behaviour("LoRALinear", "the update scaled by alpha / rank (ranks 1 to 8, alphas 1 to 16)", mutant="lora_no_scaling")
@behaviour("LoRALinear", "the scaling divides by the rank, not alpha alone", mutant="lora_scaled_by_alpha")
@behaviour(
    "LoRALinear",
    "gradient flow: A and B get the formula's gradients, and so does the input x",
    mutant="lora_detached_update",
)
@behaviour(
    "LoRALinear",
    "gradient flow: no gradient reaches the wrapped layer's weight and bias",
    mutant="lora_base_not_frozen",
)
def test_lora_linear_forward_and_gradients_match_the_formula(student):
    generator = torch.Generator().manual_seed(32)
    for n_in, n_out, rank, alpha, shape in FORWARD_CASES:
        where = f"LoRALinear(nn.Linear({n_in}, {n_out}), rank={rank}, alpha={alpha:g}) on inputs {shape}"
        state = _layer_state(n_in, n_out, True, "float32", generator)
        a, b = seeded((rank, n_in), generator), seeded((n_out, rank), generator)
        x, g = seeded(shape, generator), seeded(shape[:-1] + (n_out,), generator)
        out = student.run(
            SET_AND_BACKWARD,
            n_in=n_in,
            n_out=n_out,
            has_bias=True,
            dtype="float32",
            rank=rank,
            alpha=alpha,
            state=state,
            x=x,
            a=a,
            b=b,
            g=g,
        )
        oracle_a, oracle_b = a.clone().requires_grad_(True), b.clone().requires_grad_(True)
        oracle_x = x.clone().requires_grad_(True)
        expected = lora_linear(oracle_x, state["weight"], state["bias"], oracle_a, oracle_b, alpha)
        (expected * g).sum().backward()
        expect_close(out["out"], expected.detach(), f"{where}: the output base(x) + (alpha / rank) x A^T B^T")
        expect(not any(out["base_grads"]), f"{where}: the frozen base layer must get no gradient")
        expect(out["A_grad"] is not None and out["B_grad"] is not None, f"{where}: A and B must get gradients")
        expect_close(out["A_grad"], oracle_a.grad, f"{where}: the gradient of A")
        expect_close(out["B_grad"], oracle_b.grad, f"{where}: the gradient of B")
        expect_close(out["x_grad"], oracle_x.grad, f"{where}: the gradient of the input x")


SET_ADAPTERS = """
def set_adapters(model, adapters):
    with torch.no_grad():
        for name, (a, b) in adapters.items():
            for p in model.get_submodule(name).parameters():
                if p.requires_grad and tuple(p.shape) == tuple(a.shape):
                    p.copy_(a)
                elif p.requires_grad and tuple(p.shape) == tuple(b.shape):
                    p.copy_(b)
"""

ADD = """
from transformers import BertConfig
model = BertForSentenceClassification(BertConfig(**config))
model.load_state_dict(state)
model.eval()
returned = add_lora(model, rank, alpha)
"""

STRUCTURE = (
    ADD
    + """
with torch.no_grad():
    logits = model(input_ids=ids, attention_mask=mask)[0]
result = {"returned_model": returned is model, "logits": logits,
          "wrapped": sorted(n for n, m in model.named_modules() if type(m).__name__ == "LoRALinear"),
          "trainable": sum(p.numel() for p in model.parameters() if p.requires_grad),
          "classifier": [p.requires_grad for p in model.classifier.parameters()]}
"""
)

STEP = (
    ADD
    + SET_ADAPTERS
    + """
set_adapters(model, adapters)
model.train()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
logits, loss = model(input_ids=ids, attention_mask=mask, labels=labels)
loss.backward()
optimizer.step()
model.eval()
with torch.no_grad():
    result = model(input_ids=ids, attention_mask=mask)[0]
"""
)


def _projections(config):
    return [
        f"encoder.layer.{i}.attention.self.{p}" for i in range(config["num_hidden_layers"]) for p in ("query", "value")
    ]


@question("lora_tests", points=0.5)
@behaviour("add_lora", "the query and value projections of every layer wrapped, key left plain", mutant="lora_on_key")
@behaviour(
    "add_lora", "only the adapters and the classifier trainable (the count of a formula)", mutant="lora_rest_not_frozen"
)
@behaviour("add_lora", "the model's output unchanged by the call", mutant="lora_B_random_init")
def test_add_lora_wraps_query_and_value_and_keeps_the_output(student):
    # (config, rank, alpha): two layers, hidden 32, 3 labels; one layer, hidden 24, 2 labels (eval mode).
    for config, rank, alpha in ((TINY_BERT, 4, 8.0), (OTHER_BERT, 2, 3.0)):
        where = f"add_lora(rank={rank}, alpha={alpha:g}) on a BERT of {config['num_hidden_layers']} layer(s)"
        state, _ = tiny_bert_state(config=config)
        ids, mask, _ = tiny_bert_batch(config=config)
        out = student.run(
            STRUCTURE,
            stand_ins=("BertForSentenceClassification",),
            config=config,
            state=state,
            rank=rank,
            alpha=alpha,
            ids=ids,
            mask=mask,
        )
        expect(out["returned_model"], f"{where}: add_lora must return the model it was given")
        wanted = _projections(config)
        wrapped = set(out["wrapped"])
        keys = [name.replace("query", "key") for name in wanted if name.endswith("query")]
        expect(
            not wrapped & set(keys),
            f"{where}: the key projections were wrapped; LoRA goes on query and value only",
        )
        expect(
            wrapped == set(wanted),
            f"{where}: exactly the {len(wanted)} query and value projections (model.encoder.layer[i]"
            f".attention.self.query and .value) must be LoRALinear; {len(set(wanted) - wrapped)} of them are not, "
            f"{len(wrapped - set(wanted))} other module(s) are",
        )
        expect(all(out["classifier"]), f"{where}: classifier.weight and classifier.bias must stay trainable")
        hidden, labels = config["hidden_size"], config["num_labels"]
        count = len(wanted) * rank * 2 * hidden + hidden * labels + labels
        expect(
            out["trainable"] == count,
            f"{where}: {count:,} numbers should require gradients (the adapters' A and B and the classifier); "
            "a different number did",
        )
        expect_close(
            out["logits"],
            bert_classifier_logits(state, ids, mask, config),
            f"{where}: the logits right after add_lora (B = 0: unchanged from the model's)",
        )


@question("lora_tests", points=0.5)
@behaviour(
    "add_lora",
    "gradient flow: one SGD step over all parameters moves only the adapters and the head",
    mutant="lora_rest_not_frozen",
)
@behaviour(
    "add_lora",
    "the adapted model's forward and step with the grader's A and B: alpha / rank in every adapter",
    mutant="lora_scaled_by_alpha",
)
def test_add_lora_step_moves_only_the_adapters_and_the_head(student):
    # Checked by behaviour: the grader sets every adapter's A and B (B non-zero, so A gets gradients too), one
    # SGD step runs over *all* of model.parameters(), and the logits after it are compared with the same step
    # taken here by a hand-written LoRA BERT in which only the adapters and the classifier train.
    rank, alpha = 3, 6.0
    state, _ = tiny_bert_state(seed=77)
    ids, mask, labels = tiny_bert_batch(seed=8)
    generator = torch.Generator().manual_seed(33)
    hidden = TINY_BERT["hidden_size"]
    adapters = {
        name: (seeded((rank, hidden), generator, 1 / math.sqrt(hidden)), seeded((hidden, rank), generator, 0.3))
        for name in _projections(TINY_BERT)
    }
    after = student.run(
        STEP,
        stand_ins=("BertForSentenceClassification",),
        config=TINY_BERT,
        state=state,
        rank=rank,
        alpha=alpha,
        adapters=adapters,
        ids=ids,
        mask=mask,
        labels=labels,
    )
    expected = lora_classifier_after_sgd_step(state, adapters, alpha, ids, mask, labels, lr=0.5)
    expect_close(
        after,
        expected,
        f"add_lora(rank={rank}, alpha={alpha:g}) with the grader's A and B, logits after one SGD step over all "
        "of model.parameters() (only the adapters and the classifier may change; each adapter scaled by "
        "alpha / rank)",
        rtol=1e-4,
        atol=1e-4,
    )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "LoRALinear",
        "randomness: A's initial values (nn.Linear's rule)",
        "The tests check only that A is not zero and within +-1/sqrt(in_features), which any draw of the stated rule meets; which generator call draws it is free.",
    ),
    (
        "LoRALinear",
        "A and B as parameters or bias-free nn.Linear layers; two matmuls or a merged weight",
        "Both are allowed in the skeleton's words (the tests find A and B by shape); variants lora_linear_layers and lora_merged_weight keep full marks.",
    ),
    (
        "LoRALinear",
        "train vs eval mode, input mutation",
        "The layer has no dropout and samples nothing, and only reads its input.",
    ),
    (
        "add_lora",
        "how it finds and swaps the modules (attribute access, names and setattr)",
        "Any way that wraps exactly those modules is allowed; variant add_lora_by_module_names keeps full marks.",
    ),
    (
        "add_lora",
        "train vs eval mode, randomness, dtype",
        "add_lora only swaps modules and sets requires_grad; the caller sets the mode, and each LoRALinear takes its base's dtype (graded on LoRALinear).",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    (
        "LoRALinear",
        "base",
        "nn.Linear (in, out) of (7, 5), (4, 9) without bias in float64, (16, 12), (6, 5), (5, 8), (9, 3), (8, 6), BERT's (32, 32) and (24, 24) projections",
        None,
    ),
    ("LoRALinear", "rank", "1, 2, 3, 4, 8", None),
    ("LoRALinear", "alpha", "1, 3, 4, 6, 8, 16", None),
    ("LoRALinear.forward", "x", "(2, 3, in), (3, 6), (2, 3, 5), (1, 1, 9), (4, 8), BERT's hidden states", None),
    ("add_lora", "model", "BertForSentenceClassification of 2 layers and 3 labels, and of 1 layer and 2 labels", None),
    ("add_lora", "rank", "4, 2, 3", None),
    ("add_lora", "alpha", "8, 3, 6", None),
]
