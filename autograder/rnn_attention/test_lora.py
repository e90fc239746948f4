"""LoRALinear and add_lora: the adapter starts as its frozen base (B zero, base frozen, A a fresh random draw
within nn.Linear's bound, base's dtype and device), computes base(x) + (alpha / rank) x A^T B^T for inputs with
any leading axes and any positive alpha, with gradients for A and B only (against a hand-derived formula), in
either mode from the current A, B and base weight at every call; add_lora wraps exactly every layer's query and
value of the caller's model in place, whatever flags and mode it arrives with, keeps its output, device, dtype
and mode, and lets an optimiser step move only the adapters and the head."""

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
# the layer gets a non-contiguous view of x (its last two axes stored transposed), as a slice or a transpose gives
out = lora(x.mT.contiguous().mT if x.dim() >= 2 else x)
(out * g).sum().backward()
result = {"out": out.detach(), "A_grad": A.grad, "B_grad": B.grad, "x_grad": x.grad,
          "base_grads": [p.grad is not None for p in base.parameters()]}
"""
)

# (in_features, out_features, bias, dtype, rank, alpha): ranks 1, 3, 8; alphas 1, 6, 16; one float64 layer and
# one without bias (base.bias is None: the degenerate layer a bias-free projection gives).
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
@behaviour(
    "LoRALinear",
    "a base layer without bias (base.bias None) is wrapped and frozen like one with a bias",
    mutant="lora_bias_always_frozen",
    kind="degenerate",
)
@behaviour(
    "LoRALinear", "A and B registered as parameters: exactly two trainable tensors", mutant="lora_parameter_then_to"
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


TWO_ADAPTERS = """
def first_factor(module):
    found = [p for p in module.parameters() if p.requires_grad and tuple(p.shape) == (rank, n_in)]
    return found[0].detach().clone() if len(found) == 1 else None
first = LoRALinear(nn.Linear(n_in, n_out), rank, alpha)
second = LoRALinear(nn.Linear(n_in, n_out), rank, alpha)
bases = [nn.Linear(n_in, n_out), nn.Linear(n_in, n_out)]  # made first: nothing draws between the two adapters
third, fourth = LoRALinear(bases[0], rank, alpha), LoRALinear(bases[1], rank, alpha)
torch.manual_seed(5)
fifth = LoRALinear(bases[0], rank, alpha)
torch.manual_seed(5)
sixth = LoRALinear(bases[0], rank, alpha)  # the caller's seed repeats the draw
result = {"first": first_factor(first), "second": first_factor(second), "third": first_factor(third),
          "fourth": first_factor(fourth), "fifth": first_factor(fifth), "sixth": first_factor(sixth)}
"""


@question("lora_tests")
@behaviour(
    "LoRALinear",
    "randomness: A within +-1/sqrt(in_features) at BERT's width (768 inputs), as kaiming_uniform_ draws it",
    mutant="lora_a_normal_init",
    kind="randomness",
)
@behaviour(
    "LoRALinear",
    "randomness: each new adapter draws its own A from torch's random state (two built in a row differ)",
    mutant="lora_A_fixed_seed",
    kind="randomness",
)
@behaviour(
    "LoRALinear",
    "randomness: the draw moves torch's random state on, so two adapters built with nothing drawn between them differ "
    "(as add_lora builds a layer's query and value adapters)",
    mutant="lora_c_fork_rng",
)
@behaviour(
    "LoRALinear",
    "randomness: the caller's seed repeats A's draw (nothing reseeds torch inside, torch.seed() included)",
    mutant="lora_d_reseed",
)
def test_lora_linear_draws_a_fresh_A_within_the_bound(student):
    # nn.Linear(768, 6), rank 8: A has 6,144 entries and the bound is 1/sqrt(768) = 0.0361. A normal draw of
    # std 0.02 (BERT's initializer_range) leaves it with probability 2 * (1 - Phi(1.80)) = 0.071 per entry, so
    # all 6,144 stay inside with probability 0.929^6144 = e^-453; kaiming_uniform_ never leaves it.
    n_in, n_out, rank, alpha = 768, 6, 8, 16.0
    where = f"two LoRALinear(nn.Linear({n_in}, {n_out}), rank={rank}, alpha={alpha:g}) built one after the other"
    out = student.run(TWO_ADAPTERS, n_in=n_in, n_out=n_out, rank=rank, alpha=alpha)
    expect(
        out["first"] is not None and out["second"] is not None,
        f"{where}: each must have exactly one trainable A of shape ({rank}, {n_in})",
    )
    bound = 1 / math.sqrt(n_in)
    for a in (out["first"], out["second"]):
        worst = a.double().abs().max().item()
        expect(
            0 < worst <= bound * (1 + 1e-6),
            f"{where}: every entry of A must lie within +-1/sqrt(in_features) = {bound:.3g} at this width too "
            f"(nn.init.kaiming_uniform_(A, a=math.sqrt(5))); the largest is {worst:.3g}",
        )
    expect(
        not torch.equal(out["first"], out["second"]),
        f"{where}: both got the same A; each adapter must make its own draw from torch's random state "
        "(do not seed inside LoRALinear)",
    )
    expect(
        out["third"] is not None and out["fourth"] is not None and not torch.equal(out["third"], out["fourth"]),
        f"two LoRALinear(..., rank={rank}, alpha={alpha:g}) built one after the other on two existing nn.Linear({n_in}, "
        f"{n_out}) layers, nothing else drawn between them, got the same A: the draw must move torch's random state on "
        "as kaiming_uniform_ does (no torch.random.fork_rng, no saving and restoring the state)",
    )
    expect(
        out["fifth"] is not None and out["sixth"] is not None and torch.equal(out["fifth"], out["sixth"]),
        f"two LoRALinear(..., rank={rank}, alpha={alpha:g}) each built right after torch.manual_seed(5) got different A: "
        "the draw must come from torch's random state as the caller seeded it, so a seed repeats it (do not seed or "
        "reseed inside LoRALinear, not even with torch.seed())",
    )


# (in, out, rank, alpha, x's shape): scalings 2, 0.25, 8, 1.5, 1.25, 0.125 and 2.5 (alphas 2.5, 0.5 and 7.5 are
# not whole numbers, and alpha // rank would be 1, 0 and 2); leading axes (3,), (2, 3), (1, 1), (4,), none at
# all, a single row (1,) and three axes (2, 1, 3); a rank (4) above in_features (3); empty batches (0, 6) and
# (2, 0, 5). The layer gets x as a
# non-contiguous view wherever it has two axes of more than one entry (.view would refuse it; reshape copies).
FORWARD_CASES = [
    (6, 5, 2, 4.0, (3, 6)),
    (5, 8, 4, 1.0, (2, 3, 5)),
    (9, 3, 1, 8.0, (1, 1, 9)),
    (8, 6, 4, 6.0, (4, 8)),
    (7, 4, 2, 2.5, (7,)),
    (5, 6, 4, 0.5, (1, 5)),
    (4, 7, 3, 7.5, (2, 1, 3, 4)),
    (3, 5, 4, 2.0, (2, 3)),
    (6, 5, 2, 4.0, (0, 6)),
    (5, 4, 3, 1.5, (2, 0, 5)),
]


@question("lora_tests")
@behaviour("LoRALinear", "the update scaled by alpha / rank (ranks 1 to 8, alphas 1 to 16)", mutant="lora_no_scaling")
@behaviour("LoRALinear", "the scaling divides by the rank, not alpha alone", mutant="lora_scaled_by_alpha")
@behaviour(
    "LoRALinear",
    "alpha not a whole number (2.5, 0.5, 7.5): the scaling keeps its fraction",
    mutant="lora_int_alpha",
    kind="non-integer",
)
@behaviour(
    "LoRALinear",
    "the scaling alpha / rank divides as floats (alpha // rank gives 1, 0 and 2 here)",
    mutant="lora_floor_scaling",
    kind="non-integer",
)
@behaviour(
    "LoRALinear",
    "inputs with any leading axes: a single row (1, in), one vector (in,) and (1, 1, in)",
    mutant="lora_assumes_3d_input",
    kind="batch-of-one",
)
@behaviour(
    "LoRALinear",
    "gradient flow: A and B get the formula's gradients, and so does the input x",
    mutant="lora_detached_update",
)
@behaviour(
    "LoRALinear",
    "gradient flow: A and B get gradients (the update computed with grad enabled)",
    mutant="lora_merge_no_grad",
)
@behaviour(
    "LoRALinear",
    "gradient flow: the gradient of x passes through the base layer too",
    mutant="lora_base_under_no_grad",
)
@behaviour(
    "LoRALinear",
    "gradient flow: no gradient reaches the wrapped layer's weight and bias",
    mutant="lora_base_not_frozen",
)
@behaviour(
    "LoRALinear",
    "an empty batch (a leading axis of size 0) gives an empty output of the same leading axes",
    mutant="lora_c_empty_reshape",
    kind="degenerate",
)
@behaviour(
    "LoRALinear",
    "a rank above in_features: B is (out_features, rank) whatever in_features is",
    mutant="lora_b_zeros_like_weight_slice",
    kind="degenerate",
)
@behaviour(
    "LoRALinear",
    "inputs that are non-contiguous views (a transpose or a slice): any tensor of shape (..., in_features)",
    mutant="lora_view_flattens_leading_axes",
)
def test_lora_linear_forward_and_gradients_match_the_formula(student):
    generator = torch.Generator().manual_seed(32)
    for case in FORWARD_CASES:
        _check_the_formula(student, generator, case, SET_AND_BACKWARD, "", "A and B must get gradients")


def _check_the_formula(student, generator, case, code, mode, no_gradient):
    """Run ``code`` (SET_AND_BACKWARD or its evaluation-mode form) on one case with the grader's weights, A, B,
    input and output gradient, and compare the output and the gradients of A, B and x with the oracle's."""
    n_in, n_out, rank, alpha, shape = case
    where = f"LoRALinear(nn.Linear({n_in}, {n_out}), rank={rank}, alpha={alpha:g}){mode} on inputs {shape}"
    state = _layer_state(n_in, n_out, True, "float32", generator)
    a, b = seeded((rank, n_in), generator), seeded((n_out, rank), generator)
    x, g = seeded(shape, generator), seeded(shape[:-1] + (n_out,), generator)
    out = student.run(
        code,
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
    expect(out["A_grad"] is not None and out["B_grad"] is not None, f"{where}: {no_gradient}")
    expect_close(out["A_grad"], oracle_a.grad, f"{where}: the gradient of A")
    expect_close(out["B_grad"], oracle_b.grad, f"{where}: the gradient of B")
    expect_close(out["x_grad"], oracle_x.grad, f"{where}: the gradient of the input x")


EVAL_CASES = [(6, 5, 2, 4.0, (3, 6)), (5, 8, 4, 2.5, (2, 3, 5))]
SET_AND_BACKWARD_IN_EVAL = SET_AND_BACKWARD.replace("out = lora(", "lora.eval()\nout = lora(")


@question("lora_tests")
@behaviour(
    "LoRALinear",
    "evaluation mode computes the same function as training mode, gradients included (eval is not no_grad)",
    mutant="lora_c_eval_nograd_merge",
)
def test_lora_linear_in_evaluation_mode_keeps_its_gradients(student):
    generator = torch.Generator().manual_seed(33)
    for case in EVAL_CASES:
        _check_the_formula(
            student,
            generator,
            case,
            SET_AND_BACKWARD_IN_EVAL,
            " in evaluation mode",
            "A and B got no gradient; evaluation mode changes dropout and batch norm, not whether gradients flow "
            "(no torch.no_grad in forward)",
        )


ACROSS_CALLS = (
    BUILD_LAYER
    + """
with torch.no_grad():
    A.copy_(a)
    B.copy_(b)
lora.eval()
with torch.no_grad():
    first_eval = lora(x)
weight_after_eval = base.weight.detach().clone()
lora.train()
with torch.no_grad():
    train_after_eval = lora(x)
optimizer = torch.optim.SGD(lora.parameters(), lr=lr)
for _ in range(steps):
    optimizer.zero_grad()
    (lora(x) * g).sum().backward()
    optimizer.step()
lora.eval()
with torch.no_grad():
    after_steps = lora(x)
    base.weight.copy_(new_weight)
    after_reload = lora(x)
result = {"first_eval": first_eval, "weight_after_eval": weight_after_eval, "train_after_eval": train_after_eval,
          "after_steps": after_steps, "after_reload": after_reload}
"""
)


@question("lora_tests")
@behaviour(
    "LoRALinear",
    "train vs eval mode: the update is added in evaluation mode too",
    mutant="lora_update_only_in_training",
)
@behaviour(
    "LoRALinear",
    "state: an eval-mode call leaves base.weight's values as they were (no merge written into the base)",
    mutant="lora_merge_into_base_in_place",
    kind="state",
)
@behaviour(
    "LoRALinear",
    "state: after training steps the eval output follows the new A and B (no merge cached from an earlier call)",
    mutant="lora_eval_merge_cached",
    kind="state",
)
@behaviour(
    "LoRALinear",
    "state: the caller's own layer is self.base (new weights loaded into it show in the output; not a copy)",
    mutant="lora_deepcopies_base",
    kind="state",
)
@behaviour(
    "LoRALinear",
    "step-tolerance: three SGD steps over the layer's parameters move A and B by the formula's gradients",
    mutant="lora_parameter_then_to",
    kind="step-tolerance",
)
@behaviour(
    "LoRALinear",
    "gradient flow: the update stays in the graph, so an optimiser step trains A and B",
    mutant="lora_merge_no_grad",
    kind="step-tolerance",
)
@behaviour(
    "LoRALinear",
    "step-tolerance: the steps leave the wrapped layer where it was (frozen)",
    mutant="lora_base_not_frozen",
    kind="step-tolerance",
)
@behaviour("LoRALinear", "the update scaled by alpha / rank in evaluation mode", mutant="lora_no_scaling")
@behaviour("LoRALinear", "the scaling alpha / rank = 1.5 (not alpha alone)", mutant="lora_scaled_by_alpha")
@behaviour("LoRALinear", "the scaling alpha / rank = 1.5 (not 3 // 2)", mutant="lora_floor_scaling", kind="non-integer")
@behaviour("LoRALinear", "inputs with one leading axis (5, in)", mutant="lora_assumes_3d_input")
def test_lora_linear_follows_its_current_weights_across_calls(student):
    # Grader's A and B (B non-zero), then: an eval-mode call, a train-mode call, three SGD steps (lr 0.01) on
    # sum(out * g), an eval-mode call, new weights loaded into the caller's layer, another eval-mode call.
    # Tolerance from the size of the effect: the three steps move the output by up to 2.4 (its largest value
    # is 5.2), measured on the oracle in float64; float32 rounding over the same steps is 3.2e-7. The check
    # allows 1e-5 + 1e-4 of each value (at most 5e-4), a thousand times the rounding and far below the effect.
    n_in, n_out, rank, alpha, lr, steps = 6, 7, 2, 3.0, 0.01, 3
    where = f"LoRALinear(nn.Linear({n_in}, {n_out}), rank={rank}, alpha={alpha:g}) with A and B set"
    generator = torch.Generator().manual_seed(34)
    state = _layer_state(n_in, n_out, True, "float32", generator)
    a, b = seeded((rank, n_in), generator, 1 / math.sqrt(n_in)), seeded((n_out, rank), generator, 0.5)
    x, g = seeded((5, n_in), generator), seeded((5, n_out), generator)
    new_weight = seeded((n_out, n_in), generator, 1 / math.sqrt(n_in))
    out = student.run(
        ACROSS_CALLS,
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
        lr=lr,
        steps=steps,
        new_weight=new_weight,
    )
    oracle_a, oracle_b = a.clone().requires_grad_(True), b.clone().requires_grad_(True)
    with torch.no_grad():
        start = lora_linear(x, state["weight"], state["bias"], oracle_a, oracle_b, alpha)
    optimizer = torch.optim.SGD([oracle_a, oracle_b], lr=lr)
    for _ in range(steps):
        optimizer.zero_grad()
        (lora_linear(x, state["weight"], state["bias"], oracle_a, oracle_b, alpha) * g).sum().backward()
        optimizer.step()
    with torch.no_grad():
        trained = lora_linear(x, state["weight"], state["bias"], oracle_a, oracle_b, alpha)
        reloaded = lora_linear(x, new_weight, state["bias"], oracle_a, oracle_b, alpha)
    expect_close(
        out["first_eval"], start, f"{where}: the output in evaluation mode, base(x) + (alpha / rank) x A^T B^T"
    )
    expect(
        torch.equal(out["weight_after_eval"], state["weight"]),
        f"{where}: a call in evaluation mode changed base.weight; LoRALinear must never write into the "
        "wrapped layer (merge into a new tensor, or not at all)",
    )
    expect_close(
        out["train_after_eval"],
        start,
        f"{where}: the output in training mode after a call in evaluation mode (the update counted once)",
    )
    expect_close(
        out["after_steps"],
        trained,
        f"{where}: the output in evaluation mode after {steps} SGD steps (lr={lr:g}) over the layer's "
        "parameters: it must use A and B as they are now (no merge kept from an earlier call), and the steps "
        "must train A and B and leave the wrapped layer frozen",
    )
    expect_close(
        out["after_reload"],
        reloaded,
        f"{where}: the output after new weights were loaded into the layer that was wrapped; keep that layer "
        "itself as self.base (not a copy) and read its weight at every call",
    )


ON_DEVICE = """
base = nn.Linear(n_in, n_out, bias=has_bias, device="meta", dtype=getattr(torch, dtype))
lora = LoRALinear(base, rank, alpha)
made = [f"{p.device.type} {p.dtype}" for p in lora.parameters() if p.requires_grad]
try:
    out = lora(torch.empty(2, n_in, device="meta", dtype=getattr(torch, dtype)))
    out = [f"{out.device.type} {out.dtype}", tuple(out.shape)]
except Exception:
    out = None
result = {"made": made, "out": out}
"""


@question("lora_tests")
@behaviour(
    "LoRALinear",
    "device: A and B made on the base weight's device (a 'meta' layer standing in for a GPU), in its dtype",
    mutant="lora_device_not_set",
    kind="device",
)
@behaviour(
    "LoRALinear",
    "dtype: A and B in the base weight's dtype on another device (float64 and bfloat16 on 'meta')",
    mutant="lora_ignores_base_dtype",
    kind="device",
)
@behaviour("LoRALinear", "A and B registered as parameters, on the base's device", mutant="lora_parameter_then_to")
@behaviour("LoRALinear", "the base frozen: A and B the only trainable parameters", mutant="lora_base_not_frozen")
@behaviour("LoRALinear", "a bias-free base on another device", mutant="lora_bias_always_frozen", kind="degenerate")
@behaviour("LoRALinear", "forward on an input with one leading axis (2, in)", mutant="lora_assumes_3d_input")
def test_lora_linear_makes_A_and_B_on_the_base_device_and_dtype(student):
    # The 'meta' device has shapes and dtypes but no data: it shows where tensors are made without a GPU.
    for n_in, n_out, has_bias, dtype, rank, alpha in (
        (5, 3, True, "float64", 2, 4.0),
        (4, 6, False, "bfloat16", 3, 1.5),
    ):
        where = (
            f"LoRALinear(nn.Linear({n_in}, {n_out}, bias={has_bias}) on the 'meta' device in {dtype}, "
            f"rank={rank}, alpha={alpha:g})"
        )
        out = student.run(ON_DEVICE, n_in=n_in, n_out=n_out, has_bias=has_bias, dtype=dtype, rank=rank, alpha=alpha)
        expect(
            len(out["made"]) == 2,
            f"{where}: the adapter must have exactly two trainable parameters, A and B; it has another number",
        )
        expect(
            out["made"] == [f"meta torch.{dtype}"] * 2,
            f"{where}: A and B must be made on base.weight's device and in its dtype (here 'meta', which stands "
            f"in for a GPU, and {dtype}); they were not",
        )
        expect(
            out["out"] is not None and out["out"][0] == f"meta torch.{dtype}" and tuple(out["out"][1]) == (2, n_out),
            f"{where}: forward on an input of shape (2, {n_in}) on the same device must give a (2, {n_out}) output "
            "there, in that dtype",
        )


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

# The model arrives in the mode and with the requires_grad flags the grader gives it (frozen: the prefixes of the
# parameter names that arrive frozen; "" freezes every one).
STRUCTURE = """
from transformers import BertConfig
model = BertForSentenceClassification(BertConfig(**config))
model.load_state_dict(state)
model.train(mode == "train")
for name, parameter in model.named_parameters():
    parameter.requires_grad = not name.startswith(tuple(frozen))
existing = list(model.modules())
returned = add_lora(model, rank, alpha)
modes = sorted({m.training for m in existing})
model.eval()
with torch.no_grad():
    logits = model(input_ids=ids, attention_mask=mask)[0]
    projections = {name: model.get_submodule(name)(probe) for name in names}
result = {"returned_model": returned is model, "logits": logits, "modes": modes, "projections": projections,
          "wrapped": sorted(n for n, m in model.named_modules() if type(m).__name__ == "LoRALinear"),
          "trainable": sum(p.numel() for p in model.parameters() if p.requires_grad),
          "classifier": [p.requires_grad for p in model.classifier.parameters()]}
"""

STEP = (
    ADD
    + SET_ADAPTERS
    + """
set_adapters(model, adapters)
model.train()
with torch.no_grad():
    projections = {name: model.get_submodule(name)(probe) for name in adapters}
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
logits, loss = model(input_ids=ids, attention_mask=mask, labels=labels)
loss.backward()
optimizer.step()
model.eval()
with torch.no_grad():
    result = {"returned_model": returned is model, "projections": projections,
              "after": model(input_ids=ids, attention_mask=mask)[0]}
"""
)

ON_META = """
from transformers import BertConfig
model = BertForSentenceClassification(BertConfig(**config)).to(device="meta", dtype=torch.float64)
returned = add_lora(model, rank, alpha)
result = {"returned_model": returned is model, "made": sorted({f"{p.device.type} {p.dtype}" for p in model.parameters()}),
          "wrapped": sum(type(m).__name__ == "LoRALinear" for m in model.modules())}
"""

# Three layers (more than the two a slice like layer[-2:] keeps), 5 heads of 4, 4 labels, dropout on.
THREE_LAYER_BERT = dict(
    vocab_size=53,
    hidden_size=20,
    num_hidden_layers=3,
    num_attention_heads=5,
    intermediate_size=23,
    max_position_embeddings=16,
    type_vocab_size=2,
    num_labels=4,
    hidden_dropout_prob=0.1,
    attention_probs_dropout_prob=0.1,
)


def _projections(config):
    return [
        f"encoder.layer.{i}.attention.self.{p}" for i in range(config["num_hidden_layers"]) for p in ("query", "value")
    ]


def _pretrained_like(state, seed):
    """The state with every bias and layer norm moved off its fresh value (a fresh BERT has zero biases and unit
    layer norms, which hide a dropped bias), as in a real checkpoint: N(0, 0.2) added to each."""
    generator = torch.Generator().manual_seed(seed)
    return {
        k: v + seeded(v.shape, generator, 0.2)
        if v.is_floating_point() and (k.endswith(".bias") or "LayerNorm" in k)
        else v.clone()
        for k, v in state.items()
    }


# (config, rank, alpha, the mode the model arrives in, the prefixes of the parameters that arrive frozen).
STRUCTURE_CASES = [
    (TINY_BERT, 4, 8.0, "eval", ()),
    (OTHER_BERT, 2, 3.0, "train", ("",)),
    (THREE_LAYER_BERT, 1, 0.5, "train", ("embeddings.", "classifier.bias")),
]


@question("lora_tests", points=0.5)
@behaviour("add_lora", "the query and value projections of every layer wrapped, key left plain", mutant="lora_on_key")
@behaviour(
    "add_lora",
    "every layer wrapped: a BERT of three layers, not only the last two",
    mutant="add_lora_top_two_layers_only",
)
@behaviour(
    "add_lora", "only the adapters and the classifier trainable (the count of a formula)", mutant="lora_rest_not_frozen"
)
@behaviour(
    "add_lora",
    "only the classifier's own parameters trainable with two labels (not found by a size of 2)",
    mutant="add_lora_classifier_found_by_num_labels",
)
@behaviour(
    "add_lora",
    "degenerate: a model that arrives with nothing trainable gets its classifier trainable again",
    mutant="add_lora_classifier_never_unfrozen",
    kind="degenerate",
)
@behaviour(
    "add_lora",
    "state: the caller's model is changed in place and returned (not a copy)",
    mutant="add_lora_returns_deepcopy",
    kind="state",
)
@behaviour("add_lora", "train vs eval mode: the mode the model arrives in is kept", mutant="add_lora_sets_eval_mode")
@behaviour("add_lora", "the model's output unchanged by the call", mutant="lora_B_random_init")
@behaviour(
    "add_lora",
    "each wrapped projection keeps its base's bias (pretrained-like biases, not a fresh BERT's zeros)",
    mutant="add_lora_bias_free_rebuilt_projection",
)
def test_add_lora_wraps_query_and_value_and_keeps_the_output(student):
    for case, (config, rank, alpha, mode, frozen) in enumerate(STRUCTURE_CASES):
        layers, arrives = config["num_hidden_layers"], {(): "all trainable", ("",): "nothing trainable"}
        flags = arrives.get(frozen, "the embeddings and classifier.bias frozen")
        where = f"add_lora(rank={rank}, alpha={alpha:g}) on a BERT of {layers} layer(s) in {mode} mode, {flags}"
        state, _ = tiny_bert_state(config=config)
        state = _pretrained_like(state, seed=60 + case)
        ids, mask, _ = tiny_bert_batch(config=config)
        names = _projections(config)
        probe = seeded((2, 3, config["hidden_size"]), torch.Generator().manual_seed(70 + case))
        out = student.run(
            STRUCTURE,
            stand_ins=("BertForSentenceClassification",),
            config=config,
            state=state,
            rank=rank,
            alpha=alpha,
            mode=mode,
            frozen=list(frozen),
            ids=ids,
            mask=mask,
            names=names,
            probe=probe,
        )
        expect(
            out["returned_model"],
            f"{where}: add_lora must change the model it was given in place and return that same model (not a copy)",
        )
        wrapped = set(out["wrapped"])
        keys = [name.replace("query", "key") for name in names if name.endswith("query")]
        expect(
            not wrapped & set(keys),
            f"{where}: the key projections were wrapped; LoRA goes on query and value only",
        )
        expect(
            wrapped == set(names),
            f"{where}: exactly the {len(names)} query and value projections of every layer (model.encoder.layer[i]"
            f".attention.self.query and .value) must be LoRALinear; {len(set(names) - wrapped)} of them are not, "
            f"{len(wrapped - set(names))} other module(s) are",
        )
        expect(
            all(out["classifier"]), f"{where}: classifier.weight and classifier.bias must be trainable after the call"
        )
        hidden, labels = config["hidden_size"], config["num_labels"]
        count = len(names) * rank * 2 * hidden + hidden * labels + labels
        expect(
            out["trainable"] == count,
            f"{where}: {count:,} numbers should require gradients (the adapters' A and B and the classifier); "
            "a different number did",
        )
        expect(
            out["modes"] == [mode == "train"],
            f"{where}: add_lora must leave the model's mode as it was given ({mode} mode); it changed it",
        )
        for name in names:
            expect_close(
                out["projections"][name],
                F.linear(probe, state[f"{name}.weight"], state[f"{name}.bias"]),
                f"{where}: {name} right after add_lora (B = 0: the original layer's output, its bias included)",
            )
        expect_close(
            out["logits"],
            bert_classifier_logits(state, ids, mask, config),
            f"{where}: the logits right after add_lora (B = 0: unchanged from the model's)",
        )


@question("lora_tests", points=0.5)
@behaviour(
    "add_lora",
    "step-tolerance: one SGD step over all parameters moves only the adapters and the head",
    mutant="lora_rest_not_frozen",
    kind="step-tolerance",
)
@behaviour(
    "add_lora",
    "the adapted model's forward and step with the grader's A and B: alpha / rank in every adapter",
    mutant="lora_scaled_by_alpha",
)
@behaviour(
    "add_lora",
    "alpha not a whole number (4.5 with rank 3): every adapter scaled by 1.5",
    mutant="add_lora_alpha_cast_to_int",
    kind="non-integer",
)
@behaviour(
    "add_lora",
    "the scaling applied once (alpha handed to LoRALinear as given)",
    mutant="add_lora_scaling_passed_as_alpha",
)
@behaviour("add_lora", "the value adapters get the same alpha as the query ones", mutant="add_lora_value_alpha_typo")
@behaviour("add_lora", "every wrapped projection keeps its base's bias", mutant="add_lora_bias_free_rebuilt_projection")
@behaviour(
    "add_lora",
    "state: the caller's model is the one adapted (returned, not a copy)",
    mutant="add_lora_returns_deepcopy",
)
@behaviour("add_lora", "the value projections wrapped (not key)", mutant="lora_on_key")
@behaviour("LoRALinear", "each adapter scaled by alpha / rank inside BERT", mutant="lora_no_scaling")
@behaviour("LoRALinear", "alpha 4.5 with rank 3 inside BERT (scaling 1.5)", mutant="lora_int_alpha", kind="non-integer")
@behaviour(
    "LoRALinear", "alpha 4.5 with rank 3 inside BERT (not 4.5 // 3)", mutant="lora_floor_scaling", kind="non-integer"
)
@behaviour(
    "LoRALinear",
    "gradient flow inside BERT: the step reaches the adapters",
    mutant="lora_merge_no_grad",
    kind="step-tolerance",
)
@behaviour("LoRALinear", "the update added in evaluation mode inside BERT", mutant="lora_update_only_in_training")
def test_add_lora_step_moves_only_the_adapters_and_the_head(student):
    # Checked by behaviour: the grader sets every adapter's A and B (B non-zero, so A gets gradients too), runs
    # each wrapped projection on a probe and compares it with the formula; then one SGD step runs over *all* of
    # model.parameters(), and the logits after it are compared with the same step taken here by a hand-written
    # LoRA BERT in which only the adapters and the classifier train. Tolerance from the size of the effect: the
    # step moves the logits by up to 0.34 (measured on the oracle) and a step that moves the wrong parameters
    # or scales the adapters by 4 / 3 instead of 1.5 by at least 9e-4; float32 rounding between correct
    # answers is below 1e-6, so 1e-4 (plus 1e-4 of the value) sits between.
    rank, alpha = 3, 4.5
    state, _ = tiny_bert_state(seed=77)
    state = _pretrained_like(state, seed=78)
    ids, mask, labels = tiny_bert_batch(seed=8)
    generator = torch.Generator().manual_seed(33)
    hidden = TINY_BERT["hidden_size"]
    adapters = {
        name: (seeded((rank, hidden), generator, 1 / math.sqrt(hidden)), seeded((hidden, rank), generator, 0.3))
        for name in _projections(TINY_BERT)
    }
    probe = seeded((2, 3, hidden), generator)
    out = student.run(
        STEP,
        stand_ins=("BertForSentenceClassification",),
        config=TINY_BERT,
        state=state,
        rank=rank,
        alpha=alpha,
        adapters=adapters,
        probe=probe,
        ids=ids,
        mask=mask,
        labels=labels,
    )
    where = f"add_lora(rank={rank}, alpha={alpha:g}) with the grader's A and B"
    expect(out["returned_model"], f"{where}: add_lora must change the model it was given in place and return it")
    for name, (a, b) in adapters.items():
        expect_close(
            out["projections"][name],
            lora_linear(probe, state[f"{name}.weight"], state[f"{name}.bias"], a, b, alpha),
            f"{where}: {name}'s output (base(x) + (alpha / rank) x A^T B^T, alpha / rank = {alpha / rank:g})",
        )
    expected = lora_classifier_after_sgd_step(state, adapters, alpha, ids, mask, labels, lr=0.5)
    expect_close(
        out["after"],
        expected,
        f"{where}, logits in evaluation mode after one SGD step over all of model.parameters() (the step must "
        "reach the adapters and the classifier and change nothing else; each adapter adds its scaled update in "
        "both modes)",
        rtol=1e-4,
        atol=1e-4,
    )


@question("lora_tests", points=0.5)
@behaviour(
    "add_lora",
    "device: the adapters made where the model is (a float64 model on 'meta', whatever the global DEVICE)",
    mutant="add_lora_adapters_to_global_device",
    kind="device",
)
@behaviour(
    "add_lora",
    "dtype: every parameter keeps the model's dtype (a float64 model stays float64)",
    mutant="add_lora_base_cast_to_float32",
    kind="device",
)
@behaviour(
    "add_lora",
    "state: the caller's model is the one adapted (returned, not a copy)",
    mutant="add_lora_returns_deepcopy",
)
@behaviour("LoRALinear", "A and B on the base's device inside BERT", mutant="lora_device_not_set", kind="device")
@behaviour("LoRALinear", "A and B in the base's dtype inside BERT", mutant="lora_ignores_base_dtype", kind="device")
def test_add_lora_keeps_the_models_device_and_dtype(student):
    # The 'meta' device has shapes and dtypes but no data: it stands in for a GPU on a machine without one.
    rank, alpha, config = 2, 3.0, OTHER_BERT
    out = student.run(ON_META, stand_ins=("BertForSentenceClassification",), config=config, rank=rank, alpha=alpha)
    where = f"add_lora(rank={rank}, alpha={alpha:g}) on a float64 BERT on the 'meta' device"
    expect(out["returned_model"], f"{where}: add_lora must change the model it was given in place and return it")
    expect(
        out["wrapped"] == 2 * config["num_hidden_layers"],
        f"{where}: the query and value projections must be wrapped here too",
    )
    expect(
        out["made"] == ["meta torch.float64"],
        f"{where}: every parameter, the adapters' included, must stay on the model's device and in its dtype "
        "(here 'meta', which stands in for a GPU, and float64); some did not",
    )


CALLER_SEEDS = """
from transformers import BertConfig
draws = []
for seed in seeds:
    torch.manual_seed(seed)
    model = BertForSentenceClassification(BertConfig(**config))
    model.load_state_dict(state)
    add_lora(model, rank, alpha)
    query = model.encoder.layer[0].attention.self.query
    found = [p.detach().clone() for p in query.parameters() if p.requires_grad and tuple(p.shape) == (rank, width)]
    draws.append(found[0] if len(found) == 1 else None)
result = {"draws": draws}
"""


@question("lora_tests")
@behaviour(
    "add_lora",
    "randomness: the adapters' A come from torch's random state as the caller left it (two caller seeds, two A)",
    mutant="add_lora_seeds_global_rng",
    kind="randomness",
)
def test_add_lora_draws_from_the_callers_random_state(student):
    # The same model gets adapters twice, after torch.manual_seed(1) and after torch.manual_seed(2): the first
    # query adapter's A (rank x 32 entries drawn by kaiming_uniform_) differs unless add_lora seeds torch itself.
    state, _ = tiny_bert_state(seed=91)
    rank, alpha, width = 2, 3.0, TINY_BERT["hidden_size"]
    where = f"add_lora(rank={rank}, alpha={alpha:g}) on the same BERT after torch.manual_seed(1) and after seed 2"
    out = student.run(
        CALLER_SEEDS,
        stand_ins=("BertForSentenceClassification",),
        config=TINY_BERT,
        state=state,
        rank=rank,
        alpha=alpha,
        width=width,
        seeds=[1, 2],
    )
    draws = out.get("draws") if isinstance(out, dict) else None
    expect(
        isinstance(draws, list) and len(draws) == 2 and all(isinstance(d, torch.Tensor) for d in draws),
        f"{where}: layer 0's query adapter must have exactly one trainable A of shape ({rank}, {width})",
    )
    expect(
        not torch.equal(draws[0], draws[1]),
        f"{where}: both got the same A; the adapters must draw from torch's random state as the caller left it "
        "(do not seed inside add_lora)",
    )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope[, the kind it answers for]).
OUT_OF_SCOPE = [
    (
        "LoRALinear",
        "randomness: which generator call draws A, and the shape of its distribution inside the bound",
        "The skeleton asks only that A be a fresh random draw within +-1/sqrt(in_features); any draw of the stated rule meets it.",
    ),
    (
        "LoRALinear",
        "A and B as parameters or bias-free nn.Linear layers; two matmuls or a merged weight",
        "Both are allowed in the skeleton's words (the tests find A and B by shape); variants lora_linear_layers, lora_nn_linear_sublayers and lora_merged_weight keep full marks.",
    ),
    ("LoRALinear", "input mutation", "The layer only reads its input."),
    (
        "LoRALinear",
        "argument checks and their order",
        "The skeleton states no argument check: rank and alpha are taken as given.",
        "validation-order",
    ),
    (
        "LoRALinear",
        "a threshold or comparison landing on a boundary",
        "The layer compares nothing: its output is one formula of continuous values.",
        "boundary",
    ),
    ("LoRALinear", "ties in a sort", "LoRALinear sorts and ranks nothing.", "ties"),
    (
        "add_lora",
        "how it finds and swaps the modules (attribute access, names and setattr)",
        "Any way that wraps exactly those modules is allowed; variants add_lora_by_module_names and add_lora_named_modules_setattr keep full marks.",
    ),
    (
        "add_lora",
        "randomness: the adapters' A draws",
        "add_lora draws nothing itself: each LoRALinear draws its own A, graded in LoRALinear's randomness rows.",
        "randomness",
    ),
    (
        "add_lora",
        "argument checks and their order",
        "The skeleton states no argument check: rank and alpha go to LoRALinear as given.",
        "validation-order",
    ),
    (
        "add_lora",
        "a threshold or comparison landing on a boundary",
        "add_lora compares no values: it swaps modules and sets flags.",
        "boundary",
    ),
    ("add_lora", "ties in a sort", "add_lora sorts and ranks nothing.", "ties"),
    (
        "add_lora",
        "a batch of one",
        "add_lora takes a model, not a batch; the adapted layers' leading axes, one row included, are graded on LoRALinear.",
        "batch-of-one",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    (
        "LoRALinear",
        "base",
        "nn.Linear (in, out) of (7, 5), (4, 9) without bias in float64, (16, 12), (768, 6), (6, 5), (5, 8), (9, 3), (8, 6), (7, 4), (5, 6), (4, 7), (6, 7), (5, 3) in float64 on meta, (4, 6) without bias in bfloat16 on meta, BERT's (32, 32), (24, 24) and (20, 20) projections with non-zero biases",
        None,
    ),
    ("LoRALinear", "rank", "1, 2, 3, 4, 8", None),
    ("LoRALinear", "alpha", "0.5, 1, 1.5, 2.5, 3, 4, 4.5, 6, 7.5, 8, 16", None),
    (
        "LoRALinear.forward",
        "x",
        "(2, 3, in), (3, 6), (2, 3, 5), (1, 1, 9), (4, 8), (7,), (1, 5), (2, 1, 3, 4), (5, 6), (2, 5) and (2, 4) on meta, BERT's hidden states",
        None,
    ),
    (
        "add_lora",
        "model",
        "BertForSentenceClassification of 2 layers and 3 labels in eval mode, of 1 layer and 2 labels in train mode with nothing trainable, of 3 layers and 4 labels in train mode with the embeddings and classifier.bias frozen, of 1 layer in float64 on meta",
        None,
    ),
    ("add_lora", "rank", "1, 2, 3, 4", None),
    ("add_lora", "alpha", "0.5, 3, 4.5, 8", None),
]
