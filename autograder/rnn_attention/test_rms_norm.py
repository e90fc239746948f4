"""RMSNorm: values against the float64 formula (oracles.rms_norm, which agrees with torch.nn.RMSNorm to 1e-12)
on the grader's weights, for inputs with any number of leading axes (of length 0 too), non-contiguous inputs and
hidden_size 1, rows far from zero mean, rows whose mean square is near eps and rows of zeros; the eps given to
__init__ and its default; gradients of x and weight, at a row of zeros too; evaluation mode alike; float64,
bfloat16 (rows in the hundreds, 2048 features, gradients), float16 and the meta device; x left unmodified in
every mode and dtype; one weight of ones and nothing else at initialisation."""

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
# gradients where `gs` gives an upstream gradient), each call in its mode of `modes` ("train", "eval", or
# "no_grad": training mode under torch.no_grad()) and, where `views` says "T", on x's last two axes swapped
# (a non-contiguous x); what the module held before the load is read back too.
RUN_NORM = (
    LOAD_STATE
    + """
norm = RMSNorm(hidden_size) if eps is None else RMSNorm(hidden_size, eps=eps)
initial = {name: p.detach().clone() for name, p in norm.named_parameters()}
buffers = sorted(name for name, _ in norm.named_buffers())
load = load_grader_state(norm, {"weight": weight}) if weight is not None else None
norm = norm.to(getattr(torch, dtype))
outs, x_grads, weight_grads, unchanged = [], [], [], []
for x, g, mode, view in zip(xs, gs, modes, views):
    x = x.to(getattr(torch, dtype))
    if view == "T":
        x = x.transpose(-1, -2)
    kept = x.clone()
    if g is not None:
        x.requires_grad_(True)
        for p in norm.parameters():
            p.grad = None
    norm.train(mode != "eval")
    with torch.set_grad_enabled(mode != "no_grad"):
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


def _call(student, what, hidden, xs, weight=None, eps=None, dtype="float32", grads=None, modes=None, views=None):
    try:
        out = student.run(
            RUN_NORM,
            hidden_size=hidden,
            eps=eps,
            weight=weight,
            xs=list(xs),
            gs=list(grads) if grads is not None else [None] * len(xs),
            modes=list(modes) if modes is not None else ["train"] * len(xs),
            views=list(views) if views is not None else [None] * len(xs),
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
@behaviour(
    "RMSNorm",
    "the gradient at a row of zeros is the formula's, weight / sqrt(eps): not NaN (the root first)",
    mutant="rms_h_sqrt_then_square",
    kind="degenerate",
)
@behaviour(
    "RMSNorm",
    "the gradient at a row of zeros is the formula's, weight / sqrt(eps): not 0 (a zero row special-cased)",
    mutant="rms_h_zero_row_special_case",
    kind="degenerate",
)
def test_gradients_of_x_and_weight(student):
    for seed, shape in enumerate([(2, 3, 5), (4, 7)]):
        g = torch.Generator().manual_seed(540 + seed)
        hidden = shape[-1]
        weight = 1 + seeded((hidden,), g, 0.5)
        x = seeded(shape, g) + 0.5
        x.view(-1, hidden)[1] = 0.0  # a row of zeros, where the gradient reaching x is upstream x weight / sqrt(eps)
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
            f"the gradient of x through RMSNorm({hidden}) (x of shape {shape}, its second row zeros), against autograd "
            f"through the formula: the root mean square depends on x too, and at a row of zeros the gradient is the "
            f"upstream gradient times weight / sqrt(eps) (no NaN from a square root of 0, no special case)",
            atol=1e-9,
            rtol=1e-9,
        )
        weight_grad = weight_grads.get("weight") if isinstance(weight_grads, dict) else None
        expect(
            isinstance(weight_grad, torch.Tensor),
            f"RMSNorm({hidden}): no gradient reached weight; make it an nn.Parameter and use it in forward",
        )
        expect_close(weight_grad, wr.grad, f"the gradient of weight in RMSNorm({hidden})", atol=1e-9, rtol=1e-9)


RUN_MODES = ["train", "eval", "train", "eval"]


@question("rms_norm_tests")
@behaviour(
    "RMSNorm",
    "evaluation mode computes what training mode does, each row by its own root mean square (no running "
    "statistics kept from earlier calls)",
    mutant="rms_h_eval_running_rms",
    kind="state",
)
@behaviour(
    "RMSNorm",
    "forward differentiable in evaluation mode too: gradients reach x and weight",
    mutant="rms_h_eval_no_grad",
)
def test_evaluation_mode_computes_the_same(student):
    g = torch.Generator().manual_seed(545)
    hidden = 5
    weight = 1 + seeded((hidden,), g, 0.5)
    xs = [_rows((2, 3, hidden), g, offset=0.6 * (call + 1)) for call in range(len(RUN_MODES))]
    upstream = [seeded((2, 3, hidden), g) for _ in RUN_MODES]
    what = f"RMSNorm({hidden}) in float64, called in training, evaluation, training and evaluation mode in turn"
    out = _call(student, what, hidden, xs, weight=weight, dtype="float64", grads=upstream, modes=RUN_MODES)
    for call, (mode, x, up) in enumerate(zip(RUN_MODES, xs, upstream)):
        where = f"{what}: call {call + 1}, in {'evaluation' if mode == 'eval' else 'training'} mode"
        xr = x.double().requires_grad_(True)
        wr = weight.double().requires_grad_(True)
        expected = rms_norm(xr, wr)
        (expected * up.double()).sum().backward()
        expect_close(
            out["outs"][call],
            expected.detach(),
            f"{where}, against the formula (each row by its own root mean square in both modes: no running statistics)",
            atol=F64_TOL,
            rtol=F64_TOL,
        )
        x_grad = (out.get("x_grads") or [None] * 4)[call]
        weight_grads = (out.get("weight_grads") or [None] * 4)[call]
        weight_grad = weight_grads.get("weight") if isinstance(weight_grads, dict) else None
        expect(
            isinstance(x_grad, torch.Tensor) and isinstance(weight_grad, torch.Tensor),
            f"{where}: no gradient reached x or weight; keep forward differentiable in both modes (no torch.no_grad "
            f"in evaluation mode)",
        )
        expect_close(x_grad, xr.grad, f"{where}: the gradient of x", atol=1e-9, rtol=1e-9)
        expect_close(weight_grad, wr.grad, f"{where}: the gradient of weight", atol=1e-9, rtol=1e-9)


@question("rms_norm_tests")
@behaviour(
    "RMSNorm",
    "no rows (a leading axis of length 0): an empty result of x's shape",
    mutant="rms_h_row_loop_empty",
    kind="degenerate",
)
@behaviour("RMSNorm", "a non-contiguous x (its last two axes swapped)", mutant="rms_h_view_flatten")
@behaviour(
    "RMSNorm",
    "hidden_size 1: the mean over that one feature, not over the axes of length one before it",
    mutant="rms_h_squeeze_singletons",
    kind="batch-of-one",
)
def test_empty_non_contiguous_and_single_feature_inputs(student):
    g = torch.Generator().manual_seed(585)
    cases = [
        ("no rows", (0, 4), None),
        ("no rows", (2, 0, 4), None),
        ("non-contiguous", (2, 5, 3), "T"),  # swapped to (2, 3, 5) in the kernel
        ("hidden_size 1", (2, 3, 1), None),
        ("hidden_size 1", (1, 4, 1), None),
    ]
    for kind, shape, view in cases:
        x = _rows(shape, g, offset=0.5)
        seen = x.transpose(-1, -2) if view == "T" else x
        hidden = seen.shape[-1]
        weight = 1 + seeded((hidden,), g, 0.5)
        what = f"RMSNorm({hidden}) on x of shape {tuple(seen.shape)}" + (
            " made by swapping the last two axes of a (2, 5, 3) tensor (non-contiguous)" if view == "T" else ""
        )
        out = _call(student, what, hidden, [x], weight=weight, views=[view])
        got = out["outs"][0]
        expect(
            isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(seen.shape),
            f"{what}: the output should have x's shape {tuple(seen.shape)}; got {kernel_shape(got)} (any leading "
            f"axes, of length 0 too: reshape copies where view cannot, and squeeze would drop hidden_size 1)",
        )
        expect_close(
            got,
            rms_norm(seen, weight).float(),
            f"{what} ({kind}), against x / sqrt(mean(x^2) + eps) * weight over the last axis only",
            atol=ATOL,
            rtol=RTOL,
        )


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


# float16 keeps 11 significant bits (u = 2^-11), with the same bound as bfloat16's in its u. The gradient of x
# in bfloat16 is a difference of two terms of its size (the direct one and the one through the root mean
# square), each rounded a few times: 16u of the largest gradient is about four times that bound, and a
# gradient that does not reach x is None.
F16_U = 2.0**-11


@question("rms_norm_tests")
@behaviour(
    "RMSNorm",
    "bfloat16 rows with |x| in the hundreds: worked in bfloat16, float32 or float64, never float16 (whose squares "
    "overflow above 256)",
    mutant="rms_h_bf16_in_float16",
    kind="device",
)
@behaviour(
    "RMSNorm",
    "bfloat16 rows of 2048 features: the squares summed in float32 or wider, not in a bfloat16 running sum",
    mutant="rms_h_feature_loop_accumulate",
    kind="device",
)
@behaviour(
    "RMSNorm",
    "a bfloat16 x requiring gradients gets one (an upcast through .data or detach cuts it)",
    mutant="rms_h_upcast_via_data",
    kind="device",
)
def test_bfloat16_and_float16_at_scale(student):
    g = torch.Generator().manual_seed(555)
    cases = [
        ("bfloat16", (2, 3, 6), 300.0, True),  # a row of values in the hundreds, gradients on
        ("bfloat16", (2, 2048), None, False),  # a realistic hidden size
        # float16 values only, without the rows of zeros and near eps: its squares of 1e-3 are subnormal, and
        # the gradient there passes through (mean square + eps)^(-3/2), about 3.5e8, beyond float16's range
        ("float16", (3, 2, 6), None, False),
    ]
    for dtype, shape, large, with_grad in cases:
        hidden = shape[-1]
        torch_dtype = getattr(torch, dtype)
        weight = (1 + seeded((hidden,), g, 0.5)).to(torch_dtype).float()
        x = _rows(shape, g, offset=0.4) if dtype == "bfloat16" else seeded(shape, g) + 0.4
        if large is not None:
            x.view(-1, hidden)[0] *= large
        x = x.to(torch_dtype).float()
        upstream = seeded(shape, g).to(torch_dtype).float()
        what = f"a {dtype} RMSNorm({hidden}) on a {dtype} x of shape {shape}" + (
            f" whose first row is scaled by {large:g}" if large is not None else ""
        )
        out = _call(student, what, hidden, [x], weight=weight, dtype=dtype, grads=[upstream] if with_grad else None)
        got = out["outs"][0]
        expect(
            isinstance(got, torch.Tensor) and got.dtype == torch_dtype,
            f"{what}: the output is not {dtype}; return x's dtype (compute in it, or in float32 and cast back)",
        )
        u = BF16_U if dtype == "bfloat16" else F16_U
        xr = x.double().requires_grad_(with_grad)
        expected = rms_norm(xr, weight)
        expect_close(
            got,
            expected.detach(),
            f"{what}, against the formula in float64 on the same rounded values (work in {dtype}, float32 or "
            f"float64, never float16 for bfloat16, and sum the squares in float32 or wider)",
            atol=u * expected.abs().max().item(),
            rtol=6 * u,
        )
        if with_grad:
            (expected * upstream.double()).sum().backward()
            x_grad = (out.get("x_grads") or [None])[0]
            expect(
                isinstance(x_grad, torch.Tensor),
                f"{what}: no gradient reached x; keep forward differentiable in every dtype (an upcast through .data "
                f"or .detach() cuts the graph; x.float() keeps it)",
            )
            expect_close(
                x_grad,
                xr.grad,
                f"{what}: the gradient of x against autograd through the formula in float64",
                atol=16 * u * xr.grad.abs().max().item(),
                rtol=16 * u,
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
@behaviour(
    "RMSNorm",
    "x is left as it was under torch.no_grad() and in evaluation mode too",
    mutant="rms_h_inplace_under_no_grad",
    kind="state",
)
@behaviour(
    "RMSNorm",
    "a float64 x is left as it was (x.double() of a float64 x is x itself, not a copy)",
    mutant="rms_h_inplace_via_double",
    kind="device",
)
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
    # every dtype, each x without gradients: under torch.no_grad(), then in evaluation mode, then in training mode
    modes = ["no_grad", "eval", "train"]
    for dtype in ["float32", "float64", "bfloat16", "float16"]:
        xs = [seeded((2, 3, hidden), g) + 0.5 for _ in modes]
        what = f"a {dtype} RMSNorm({hidden}) called under torch.no_grad(), in evaluation and in training mode"
        out = _call(student, what, hidden, xs, weight=weight, dtype=dtype, modes=modes)
        changed = [mode for mode, kept in zip(modes, out.get("unchanged") or []) if kept is not True]
        expect(
            len(out.get("unchanged") or []) == 3 and not changed,
            f"{what}: RMSNorm changed its {dtype} input x ({', '.join(changed) or 'unread'}): leave x as it is in "
            f"every mode and dtype, with gradients on or off (x.double() of a float64 x is x itself, so nothing in "
            f"place on it either)",
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
        "rounding of a float16 x whose squares overflow",
        "The skeleton lets float16 be worked in float16, whose squares overflow above 256; the tests keep float16 "
        "values below 10, where every allowed working dtype agrees.",
    ),
]

CONTRACT_PARAMETERS = [
    ("RMSNorm", "hidden_size", "1, 3, 4, 5, 6, 7, 2048", None),
    ("RMSNorm", "eps", "the default (1e-6), 0.25, 0.01", None),
    (
        "RMSNorm.forward",
        "x",
        "(6,), (4, 7), (2, 3, 5), (1, 1, 3), (3, 1, 4), (2, 2, 3, 4), (2, 2048), (0, 4), (2, 0, 4), (2, 3, 1), "
        "(1, 4, 1), a non-contiguous (2, 3, 5); rows shifted by 1.5, -0.7, 0.4 and 0.8, rows scaled by 1e-3 and by "
        "300, rows of zeros; float32, float64, bfloat16, float16; CPU and meta; training and evaluation mode, under "
        "torch.no_grad(); requiring gradients",
        None,
    ),
]
