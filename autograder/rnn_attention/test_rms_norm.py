"""RMSNorm: values against the float64 formula (oracles.rms_norm, which agrees with torch.nn.RMSNorm to 1e-12)
on the grader's weights, for inputs with any number of leading axes, rows far from zero mean, rows whose mean
square is near eps and rows of zeros; the eps given to __init__ and its default; gradients of x and weight;
float64, bfloat16 and the meta device; x left unmodified; one weight of ones and nothing else at initialisation."""

import torch

from assignments.grading.testkit import (
    GradingFailure,
    StudentCodeError,
    behaviour,
    expect,
    expect_close,
    kernel_shape,
    question,
)
from autograder.rnn_attention.checks import LOAD_STATE, expect_loaded
from autograder.rnn_attention.inputs import seeded
from autograder.rnn_attention.oracles import rms_norm

# One module, the grader's weight loaded, then converted to `dtype` and called on each x of `xs` in turn (with
# gradients when `grad`); what the module held before the load is read back too.
RUN_NORM = (
    LOAD_STATE
    + """
norm = RMSNorm(hidden_size) if eps is None else RMSNorm(hidden_size, eps=eps)
initial = {name: p.detach().clone() for name, p in norm.named_parameters()}
buffers = sorted(name for name, _ in norm.named_buffers())
load = load_grader_state(norm, {"weight": weight}) if weight is not None else None
norm = norm.to(getattr(torch, dtype))
outs, x_grads, weight_grads, unchanged = [], [], [], []
for x, g in zip(xs, gs):
    x = x.to(getattr(torch, dtype))
    kept = x.clone()
    if g is not None:
        x.requires_grad_(True)
        for p in norm.parameters():
            p.grad = None
    out = norm(x)
    if g is not None and isinstance(out, torch.Tensor) and out.requires_grad:
        (out * g.to(out.dtype)).sum().backward()
        x_grads.append(x.grad)
        weight_grads.append({name: p.grad for name, p in norm.named_parameters()})
    elif g is not None:
        x_grads.append(None)
        weight_grads.append(None)
    unchanged.append(bool(torch.equal(x.detach(), kept)))
    outs.append(out.detach() if isinstance(out, torch.Tensor) else out)
result = {"outs": outs, "initial": initial, "buffers": buffers, "load": load, "x_grads": x_grads,
          "weight_grads": weight_grads, "unchanged": unchanged}
"""
)

# float32 against the float64 formula: each output is x_j times one factor made of a sum of `hidden` squares
# (at most 7 here), a square root and a division; float32 rounds each step by at most 6e-8 relatively, so an
# output is off by at most about (7 + 4) x 6e-8 = 7e-7 of its size (below 5 here): 1e-5 absolute and relative is
# ten times that. Each mistake of the behaviour map moves some output by more than 0.01.
ATOL = RTOL = 1e-5


def _rows(shape, g, offset=0.0):
    """x of ``shape`` with rows of every kind: normal rows shifted by ``offset`` (a subtracted mean shows), a row
    scaled by 1e-3 (its mean square, about 1e-6, is as large as the default eps) and, where there are three rows
    or more, a row of zeros."""
    x = seeded(shape, g) + offset
    flat = x.view(-1, shape[-1])
    if flat.shape[0] >= 2:
        flat[1] *= 1e-3
    if flat.shape[0] >= 3:
        flat[2] = 0.0
    return x


def _call(student, what, hidden, xs, weight=None, eps=None, dtype="float32", grads=None):
    try:
        out = student.run(
            RUN_NORM,
            hidden_size=hidden,
            eps=eps,
            weight=weight,
            xs=list(xs),
            gs=list(grads) if grads is not None else [None] * len(xs),
            dtype=dtype,
        )
    except StudentCodeError as error:
        raise GradingFailure(f"{what}: your code raised {error}") from None
    expect(
        isinstance(out, dict) and isinstance(out.get("outs"), list),
        f"{what}: the grader could not read RMSNorm's output",
    )
    if weight is not None:
        expect_loaded(out.get("load"), {"weight": weight}, "RMSNorm")
    return out


@question("rms_norm_tests")
@behaviour("RMSNorm", "the mean square over the last axis, not the sum", mutant="rms_sum_not_mean")
@behaviour("RMSNorm", "the mean over the last axis only, one value per row", mutant="rms_mean_over_all_axes")
@behaviour("RMSNorm", "no mean subtracted (rows far from zero mean)", mutant="rms_mean_subtracted")
@behaviour("RMSNorm", "the root of the mean square, not the mean of absolute values", mutant="rms_mean_absolute")
@behaviour("RMSNorm", "scaled by the loaded weight", mutant="rms_weight_not_applied")
@behaviour("RMSNorm", "eps inside the square root (rows whose mean square is near eps)", mutant="rms_eps_outside_root")
@behaviour(
    "RMSNorm",
    "a row of zeros comes out as zeros, not NaN: eps keeps the root positive",
    mutant="rms_no_eps",
    kind="degenerate",
)
@behaviour(
    "RMSNorm",
    "inputs with one, two, three and four axes, and axes of length one: the shape of x comes back",
    mutant="rms_squeezed_normaliser",
    kind="batch-of-one",
)
def test_values_against_the_formula(student):
    # shapes with every size different, the edges of a single vector, a batch of one of one position, a middle
    # axis of one (where a squeezed (batch, seq) normaliser broadcasts wrongly) and four axes
    shapes = [(2, 3, 5), (4, 7), (6,), (1, 1, 3), (3, 1, 4), (2, 2, 3, 4)]
    for seed, shape in enumerate(shapes):
        g = torch.Generator().manual_seed(500 + seed)
        hidden = shape[-1]
        weight = 1 + seeded((hidden,), g, 0.5)
        xs = [_rows(shape, g, offset=1.5), _rows(shape, g, offset=-0.7)]  # one module, two inputs in turn
        out = _call(student, f"RMSNorm({hidden}) on x of shape {shape}", hidden, xs, weight=weight)
        for call, (x, got) in enumerate(zip(xs, out["outs"])):
            expect(
                isinstance(got, torch.Tensor) and tuple(got.shape) == shape,
                f"RMSNorm({hidden}) on x of shape {shape}: the output should have x's shape; got "
                f"{kernel_shape(got)} (the mean over the last axis only, kept as an axis of one to broadcast)",
            )
            expect_close(
                got,
                rms_norm(x, weight).float(),
                f"RMSNorm({hidden}) on x of shape {shape} (call {call + 1}), rows far from zero mean, a row near "
                f"eps and a row of zeros, against x / sqrt(mean(x^2) + eps) * weight over the last axis",
                atol=ATOL,
                rtol=RTOL,
            )


@question("rms_norm_tests")
@behaviour(
    "RMSNorm", "one parameter, weight, ones of shape (hidden_size,) at initialisation", mutant="rms_weight_zeros"
)
@behaviour("RMSNorm", "no bias and no other parameter", mutant="rms_with_bias")
@behaviour("RMSNorm", "eps defaults to 1e-6 when __init__ is given none", mutant="rms_eps_default_layer_norm")
def test_starts_as_ones_with_the_default_eps(student):
    g = torch.Generator().manual_seed(520)
    hidden = 6
    x = _rows((3, 4, hidden), g)
    out = _call(student, f"a fresh RMSNorm({hidden})", hidden, [x])
    initial = out.get("initial")
    expect(
        isinstance(initial, dict) and sorted(initial) == ["weight"],
        f"RMSNorm({hidden}) should have exactly one parameter, weight; it has {len(initial or {})} (no bias)",
    )
    weight = initial["weight"]
    expect(
        isinstance(weight, torch.Tensor) and tuple(weight.shape) == (hidden,) and bool((weight == 1).all()),
        f"RMSNorm({hidden}).weight should start as ones of shape ({hidden},)",
    )
    expect_close(
        out["outs"][0],
        rms_norm(x, torch.ones(hidden), eps=1e-6).float(),
        f"a fresh RMSNorm({hidden}) with the default eps (1e-6) on rows whose mean square is near 1e-6",
        atol=ATOL,
        rtol=RTOL,
    )


@question("rms_norm_tests")
@behaviour(
    "RMSNorm",
    "the eps given to __init__ (0.25, 0.01: not whole numbers) is the one used",
    mutant="rms_eps_ignored",
    kind="non-integer",
)
def test_uses_the_eps_it_is_given(student):
    for seed, eps in enumerate([0.25, 0.01]):
        g = torch.Generator().manual_seed(530 + seed)
        hidden = 5
        weight = 1 + seeded((hidden,), g, 0.5)
        x = seeded((2, 3, hidden), g, 0.3)  # mean squares about 0.09, where eps = 0.25 or 0.01 shows
        out = _call(student, f"RMSNorm({hidden}, eps={eps})", hidden, [x], weight=weight, eps=eps)
        expect_close(
            out["outs"][0],
            rms_norm(x, weight, eps=eps).float(),
            f"RMSNorm({hidden}, eps={eps}) against the formula with that eps",
            atol=ATOL,
            rtol=RTOL,
        )


@question("rms_norm_tests")
@behaviour(
    "RMSNorm",
    "gradients of x flow through the root mean square too (it is not a constant)",
    mutant="rms_detached_rms",
)
@behaviour("RMSNorm", "gradients reach the weight", mutant="rms_weight_buffer")
def test_gradients_of_x_and_weight(student):
    for seed, shape in enumerate([(2, 3, 5), (4, 7)]):
        g = torch.Generator().manual_seed(540 + seed)
        hidden = shape[-1]
        weight = 1 + seeded((hidden,), g, 0.5)
        x = seeded(shape, g) + 0.5
        upstream = seeded(shape, g)
        out = _call(
            student,
            f"gradients of RMSNorm({hidden}) in float64",
            hidden,
            [x],
            weight=weight,
            dtype="float64",
            grads=[upstream],
        )
        xr = x.double().requires_grad_(True)
        wr = weight.double().requires_grad_(True)
        (rms_norm(xr, wr) * upstream.double()).sum().backward()
        x_grad = (out.get("x_grads") or [None])[0]
        weight_grads = (out.get("weight_grads") or [None])[0]
        expect(
            isinstance(x_grad, torch.Tensor),
            f"RMSNorm({hidden}): no gradient reached x; keep forward differentiable (no detach, no torch.no_grad)",
        )
        expect_close(
            x_grad,
            xr.grad,
            f"the gradient of x through RMSNorm({hidden}) (x of shape {shape}), against autograd through the formula: "
            f"the root mean square depends on x too",
            atol=1e-9,
            rtol=1e-9,
        )
        weight_grad = weight_grads.get("weight") if isinstance(weight_grads, dict) else None
        expect(
            isinstance(weight_grad, torch.Tensor),
            f"RMSNorm({hidden}): no gradient reached weight; make it an nn.Parameter and use it in forward",
        )
        expect_close(weight_grad, wr.grad, f"the gradient of weight in RMSNorm({hidden})", atol=1e-9, rtol=1e-9)


# float64: the same bound as float32 with 1.1e-16 for 6e-8, about 1.3e-15 of an output below 5; 1e-12 is a
# thousand times that, and a computation that passes through float32 anywhere is off by about 1e-7.
F64_TOL = 1e-12
# bfloat16 keeps 8 significant bits (u = 2^-8). The oracle runs in float64 on the same bfloat16-rounded weight and
# inputs; a bfloat16 forward rounds the square, the mean, the sum with eps, the root, the division and the product
# with weight, each by at most u of its value (PyTorch accumulates the mean in float32): an output is off by at most
# about 6u = 0.023 of its size, plus u of the largest output for the rows of zeros and near eps. Working in float32
# and rounding once at the end is closer still.
BF16_U = 2.0**-8


@question("rms_norm_tests")
@behaviour(
    "RMSNorm",
    "float64 module and input: computed and returned in float64 (no float32 step)",
    mutant="rms_float32_for_float64",
    kind="device",
)
@behaviour(
    "RMSNorm",
    "bfloat16 module and input: bfloat16 comes back (a float32 step cast back at the end is fine)",
    mutant="rms_float32_output_for_bfloat16",
    kind="device",
)
def test_float64_and_bfloat16(student):
    for seed, (dtype, shape) in enumerate([("float64", (2, 3, 5)), ("bfloat16", (3, 2, 6)), ("bfloat16", (4, 7))]):
        g = torch.Generator().manual_seed(550 + seed)
        hidden = shape[-1]
        weight = 1 + seeded((hidden,), g, 0.5)
        x = _rows(shape, g, offset=0.8)
        what = f"a {dtype} RMSNorm({hidden}) on a {dtype} x of shape {shape}"
        out = _call(student, what, hidden, [x], weight=weight, dtype=dtype)
        got = out["outs"][0]
        torch_dtype = getattr(torch, dtype)
        expect(
            isinstance(got, torch.Tensor) and got.dtype == torch_dtype,
            f"{what}: the output is not {dtype}; return x's dtype (compute in it, or wider and cast back)",
        )
        expected = rms_norm(x.to(torch_dtype), weight.to(torch_dtype))
        if dtype == "float64":
            expect_close(got, expected, f"{what}, against the formula in float64", atol=F64_TOL, rtol=F64_TOL)
        else:
            largest = expected.abs().max().item()
            expect_close(
                got,
                expected,
                f"{what}, against the formula in float64 on the same bfloat16-rounded values",
                atol=BF16_U * largest,
                rtol=6 * BF16_U,
            )


RUN_DEVICE = """
norm = RMSNorm(hidden_size).to(device)
out = norm(x.to(device))
result = {"found": [out.device.type, str(out.dtype), list(out.shape)] if isinstance(out, torch.Tensor) else None}
"""


@question("rms_norm_tests")
@behaviour(
    "RMSNorm",
    "a module and input on another device (the meta device stands in for a GPU): nothing made on the CPU",
    mutant="rms_eps_tensor_on_cpu",
    kind="device",
)
def test_runs_on_the_device_of_its_input(student):
    # The meta device computes shapes, dtypes and devices but no values, and runs everywhere, so it stands in for
    # a GPU: a tensor made on the CPU meets the module's tensors on another device, as it would on a GPU.
    x = seeded((2, 3, 5), torch.Generator().manual_seed(560))
    what = "RMSNorm(5) and x of shape (2, 3, 5) on the meta device (a stand-in for a GPU)"
    try:
        out = student.run(RUN_DEVICE, hidden_size=5, x=x, device="meta")
    except StudentCodeError as error:
        raise GradingFailure(f"{what}: your code raised {error}; make every tensor on x's device") from None
    found = out.get("found") if isinstance(out, dict) else None
    expect(
        found == ["meta", "torch.float32", [2, 3, 5]],
        f"{what}: the output is not a float32 tensor of shape (2, 3, 5) on the meta device",
    )


@question("rms_norm_tests")
@behaviour("RMSNorm", "x is left as it was (no in-place operation on it)", mutant="rms_in_place")
def test_leaves_its_input_unmodified(student):
    g = torch.Generator().manual_seed(570)
    hidden = 4
    weight = 1 + seeded((hidden,), g, 0.5)
    xs = [seeded((2, 3, hidden), g) + 0.5, seeded((5, hidden), g)]
    out = _call(student, f"RMSNorm({hidden}) called on two inputs", hidden, xs, weight=weight)
    expect(
        out.get("unchanged") == [True, True],
        "RMSNorm changed its input x: leave x as it is (no in-place operation such as x /= ... or x.mul_)",
    )
    for x, got in zip(xs, out["outs"]):
        expect_close(
            got, rms_norm(x, weight).float(), "RMSNorm's output beside an unchanged input", atol=ATOL, rtol=RTOL
        )


OUT_OF_SCOPE = [
    ("RMSNorm", "randomness", "Nothing is random: the weight starts as ones and forward draws nothing.", "randomness"),
    (
        "RMSNorm",
        "argument checks and their order",
        "The skeleton states no argument checks: hidden_size always matches x's last axis in the tests.",
        "validation-order",
    ),
    (
        "RMSNorm",
        "a threshold compared with > or >=",
        "RMSNorm compares nothing with a threshold; eps is added, and its place is tested with rows near eps.",
        "boundary",
    ),
    ("RMSNorm", "ties", "Nothing is sorted or ranked.", "ties"),
    (
        "RMSNorm",
        "state kept between calls",
        "The skeleton gives RMSNorm nothing to keep beyond its weight, which forward only reads (no running "
        "statistics, unlike batch normalisation); the value test calls each module on two inputs in turn anyway.",
        "state",
    ),
    (
        "RMSNorm",
        "optimisation steps",
        "RMSNorm takes no optimisation step; its gradients are compared with autograd through the formula.",
        "step-tolerance",
    ),
    (
        "RMSNorm",
        "train and evaluation mode",
        "RMSNorm has no dropout or running statistics, so both modes compute the same thing.",
    ),
]

CONTRACT_PARAMETERS = [
    ("RMSNorm", "hidden_size", "3, 4, 5, 6, 7", None),
    ("RMSNorm", "eps", "the default (1e-6), 0.25, 0.01", None),
    (
        "RMSNorm.forward",
        "x",
        "(6,), (4, 7), (2, 3, 5), (1, 1, 3), (3, 1, 4), (2, 2, 3, 4); rows shifted by 1.5, -0.7 and 0.8, rows scaled "
        "by 1e-3, rows of zeros; float32, float64, bfloat16; CPU and meta; requiring gradients",
        None,
    ),
]
