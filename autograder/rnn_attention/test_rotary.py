"""apply_rotary: values against complex multiplication in float64 (oracles.rotary) at arbitrary integer positions,
several bases and hidden sizes; the properties rotary positions rest on (every pair keeps its length, position 0
turns nothing, a chunk at its absolute positions equals the matching rows of the whole sequence, query-key scores
unchanged when both positions move by the same amount, cached causal attention with turned keys equal to the full
pass); bfloat16, float64 at large positions, int32 positions and the meta device; gradients; x left unmodified;
nothing kept between calls."""

import math

import torch
import torch.nn.functional as F

from assignments.grading.testkit import (
    GradingFailure,
    StudentCodeError,
    behaviour,
    expect,
    expect_close,
    kernel_shape,
    question,
)
from autograder.rnn_attention.inputs import seeded
from autograder.rnn_attention.oracles import rotary

# float32 against float64: an output is x_2i cos - x_2i+1 sin with the angle positions[t] * base^(-2i/hidden)
# rounded in float32, off by at most about 2 x 6e-8 of itself (below 80 radians here: 1e-5), which moves an output
# by at most |x| x 1e-5; with the products and the sum (6e-8 each) and |x| below 5, 1e-4 absolute and relative is
# about twice the worst case. Each mistake of the behaviour map moves some output by more than 0.05.
ATOL = RTOL = 1e-4


def _run(student, what, code, **inputs):
    try:
        return student.run(code, **inputs)
    except StudentCodeError as error:
        raise GradingFailure(f"{what}: your code raised {error}") from None


def _turn(student, x, positions, base=None, what=None):
    what = what or f"apply_rotary on x of shape {tuple(x.shape)} at positions {positions.tolist()}"
    code = "result = apply_rotary(x, positions)" if base is None else "result = apply_rotary(x, positions, base=base)"
    out = _run(student, what, code, x=x, positions=positions, base=base)
    expect(
        isinstance(out, torch.Tensor) and tuple(out.shape) == tuple(x.shape),
        f"{what}: the result should have x's shape {tuple(x.shape)}; got {kernel_shape(out)}",
    )
    return out


# (x's shape, positions): every size different; positions in no order, repeated and far from 0; a chunk that
# starts at 10; one position (a batch of one, and a sequence of one); a single pair (hidden 2); and seq equal to
# hidden / 2, where a (hidden/2, seq) table of angles broadcasts without an error
CASES = [
    ((2, 3, 6), [7, 0, 3]),
    ((1, 4, 10), [10, 11, 12, 13]),
    ((3, 5, 4), [2, 9, 9, 30, 4]),
    ((2, 1, 10), [57]),
    ((1, 1, 4), [5]),
    ((2, 6, 2), [0, 1, 2, 3, 4, 5]),
    ((2, 4, 8), [1, 6, 2, 40]),
]


@question("rotary_tests")
@behaviour(
    "apply_rotary", "pairs of neighbours (2i, 2i + 1), not feature j with j + hidden/2", mutant="rotary_rotate_half"
)
@behaviour("apply_rotary", "turned by +theta (the sin signs as stated)", mutant="rotary_turned_backwards")
@behaviour("apply_rotary", "the angle's exponent -2i / hidden, not -i / hidden", mutant="rotary_exponent_without_two")
@behaviour("apply_rotary", "a negative exponent (the last pairs turn slowest)", mutant="rotary_positive_exponent")
@behaviour("apply_rotary", "the positions given, not the rows' indices", mutant="rotary_rows_counted_from_zero")
@behaviour(
    "apply_rotary",
    "the exponent -2i / hidden is a fraction: integer division makes it 0 or -1",
    mutant="rotary_integer_exponent",
    kind="non-integer",
)
@behaviour(
    "apply_rotary",
    "a batch of one and a sequence of one position",
    mutant="rotary_positions_squeezed",
    kind="batch-of-one",
)
def test_values_against_complex_multiplication(student):
    for seed, (shape, positions) in enumerate(CASES):
        x, positions = seeded(shape, torch.Generator().manual_seed(600 + seed)), torch.tensor(positions)
        out = _turn(student, x, positions)
        expect_close(
            out,
            rotary(x, positions).float(),
            f"apply_rotary on x of shape {shape} at positions {positions.tolist()}, against pair (2i, 2i + 1) turned "
            f"by positions[t] * 10000 ** (-2i / hidden)",
            atol=ATOL,
            rtol=RTOL,
        )


@question("rotary_tests")
@behaviour("apply_rotary", "the base given (100.0, 500.5), not always 10000", mutant="rotary_base_ignored")
def test_uses_the_base_it_is_given(student):
    for seed, base in enumerate([100.0, 500.5]):
        x, positions = seeded((2, 3, 8), torch.Generator().manual_seed(620 + seed)), torch.tensor([3, 8, 1])
        out = _turn(student, x, positions, base=base)
        expect_close(out, rotary(x, positions, base).float(), f"apply_rotary with base={base}", atol=ATOL, rtol=RTOL)


def _pairs(t):
    return t.reshape(*t.shape[:-1], t.shape[-1] // 2, 2)


@question("rotary_tests")
@behaviour(
    "apply_rotary",
    "every pair keeps its length: a rotation, not another 2 x 2 map",
    mutant="rotary_not_a_rotation",
)
def test_every_pair_keeps_its_length(student):
    x, positions = seeded((3, 4, 8), torch.Generator().manual_seed(630)), torch.tensor([1, 5, 12, 33])
    out = _turn(student, x, positions)
    expect_close(
        _pairs(out).norm(dim=-1),
        _pairs(x).norm(dim=-1),
        "the length of every pair (x[2i], x[2i + 1]) after the turn, against before",
        atol=ATOL,
        rtol=RTOL,
    )


@question("rotary_tests")
@behaviour(
    "apply_rotary",
    "position 0 turns nothing (the identity), down to a single pair",
    mutant="rotary_positions_from_one",
    kind="degenerate",
)
def test_position_zero_turns_nothing(student):
    for seed, shape in enumerate([(2, 1, 6), (1, 3, 2)]):
        x = seeded(shape, torch.Generator().manual_seed(640 + seed))
        out = _turn(student, x, torch.zeros(shape[1], dtype=torch.long))
        expect_close(out, x, f"x of shape {shape} at position 0 (must come back unchanged)", atol=1e-6, rtol=1e-6)


@question("rotary_tests")
@behaviour(
    "apply_rotary",
    "a chunk at its absolute positions equals the matching rows of the whole sequence",
    mutant="rotary_rows_counted_from_zero",
)
def test_a_chunk_equals_the_rows_of_the_whole_sequence(student):
    x = seeded((2, 9, 6), torch.Generator().manual_seed(650))
    whole = _turn(student, x, torch.arange(9))
    for start, stop in [(4, 9), (8, 9), (2, 5)]:
        chunk = _turn(student, x[:, start:stop], torch.arange(start, stop))
        expect_close(
            chunk,
            whole[:, start:stop],
            f"rows {start} to {stop - 1} turned as a chunk at positions {start}..{stop - 1}, against the same rows of "
            f"the whole sequence turned at positions 0..8",
            atol=ATOL,
            rtol=RTOL,
        )


@question("rotary_tests")
@behaviour(
    "apply_rotary",
    "query-key scores unchanged when the positions of both move on by the same amount",
    mutant="rotary_not_a_rotation",
)
def test_scores_depend_only_on_the_distance(student):
    g = torch.Generator().manual_seed(660)
    q, k = seeded((2, 5, 8), g), seeded((2, 5, 8), g)
    at = torch.tensor([0, 2, 3, 7, 11])
    code = "result = [apply_rotary(q, at + shift) @ apply_rotary(k, at + shift).transpose(1, 2) for shift in shifts]"
    out = _run(student, "scores of turned queries and keys", code, q=q, k=k, at=at, shifts=[0, 25, 200])
    expect(isinstance(out, list) and len(out) == 3, "the grader could not read the scores of turned queries and keys")
    for shift, scores in zip((25, 200), out[1:]):
        expect_close(
            scores,
            out[0],
            f"the scores q . k of queries and keys turned at positions moved on by {shift}, against the same at the "
            f"positions themselves (a turn keeps only the distance between two positions)",
            atol=1e-3,
            rtol=1e-4,
        )


# The keys of a causal self-attention turned as they arrive, chunk by chunk at their absolute positions (a cache
# keeps them turned), and each chunk's queries turned at theirs; the attention is computed here.
RUN_CHUNKS = """
turned_q, turned_k, past = [], [], 0
for new in chunks:
    at = torch.arange(past, past + new)
    turned_q.append(apply_rotary(q[:, past:past + new], at))
    turned_k.append(apply_rotary(k[:, past:past + new], at))
    past += new
result = {"q": turned_q, "k": turned_k}
"""


@question("rotary_tests")
@behaviour(
    "apply_rotary",
    "cached causal attention with keys turned as they arrive equals the full pass",
    mutant="rotary_rows_counted_from_zero",
)
def test_cached_attention_with_turned_keys_equals_the_full_pass(student):
    g = torch.Generator().manual_seed(670)
    batch, hidden, chunks = 2, 6, [3, 1, 2, 1]
    T = sum(chunks)
    q, k, v = (seeded((batch, T, hidden), g) for _ in range(3))
    out = _run(student, "queries and keys turned chunk by chunk", RUN_CHUNKS, q=q, k=k, chunks=chunks)
    expect(isinstance(out, dict), "the grader could not read the turned queries and keys")
    at = torch.arange(T)
    full = F.scaled_dot_product_attention(rotary(q, at), rotary(k, at), v.double(), is_causal=True)
    cached_keys, past = None, 0
    for step, (new, tq, tk) in enumerate(zip(chunks, out.get("q") or [], out.get("k") or [])):
        for name, t in (("queries", tq), ("keys", tk)):
            expect(
                isinstance(t, torch.Tensor) and tuple(t.shape) == (batch, new, hidden),
                f"the turned {name} of chunk {step + 1} should have shape {(batch, new, hidden)}; got {kernel_shape(t)}",
            )
        tk = tk.double()
        cached_keys = tk if cached_keys is None else torch.cat([cached_keys, tk], 1)  # (B, past + new, H)
        scores = tq.double() @ cached_keys.transpose(1, 2) / math.sqrt(hidden)
        future = torch.ones(new, past + new, dtype=torch.bool).triu(past + 1)  # query i is position past + i
        context = torch.softmax(scores.masked_fill(future, float("-inf")), -1) @ v.double()[:, : past + new]
        expect_close(
            context,
            full[:, past : past + new],
            f"causal attention of chunk {step + 1} (positions {past}..{past + new - 1}) against the keys turned so far, "
            f"each at its own position, against the full pass with every position turned at once",
            atol=ATOL,
            rtol=RTOL,
        )
        past += new


# float64 at positions up to 10^6: float32 angles there are off by up to about 0.03 radians; 1e-9 is far above
# float64's rounding (10^6 x 1.1e-16 = 1e-10 of an angle) and far below that.
F64_TOL = 1e-9
# bfloat16: the result is rounded once to 8 significant bits (u = 2^-8 of each output), and a bfloat16 product
# x * cos(theta) with cos and sin rounded to bfloat16 adds at most about 3u of |x|; with |x| below 4, 3u x 4 plus
# 2u of the output is well under the 0.25 radians (times |x|) an angle of about 100 computed in bfloat16 loses.
BF16_U = 2.0**-8


@question("rotary_tests")
@behaviour(
    "apply_rotary",
    "bfloat16 x: bfloat16 comes back (float32 cos and sin times bfloat16 x is float32 until cast back)",
    mutant="rotary_float32_result_for_bfloat16",
    kind="device",
)
@behaviour(
    "apply_rotary",
    "bfloat16 x at positions 40 to 120: the angles in float32, not in bfloat16",
    mutant="rotary_angles_in_input_dtype",
    kind="device",
)
@behaviour(
    "apply_rotary",
    "float64 x at positions near 10^6: the angles in float64",
    mutant="rotary_float32_angles_for_float64",
    kind="device",
)
def test_bfloat16_float64_and_int32_positions(student):
    g = torch.Generator().manual_seed(680)
    x = seeded((2, 3, 8), g)
    positions = torch.tensor([40, 77, 120])
    rounded = x.to(torch.bfloat16)
    out = _turn(student, rounded, positions, what="apply_rotary on a bfloat16 x at positions 40, 77, 120")
    expect(
        out.dtype == torch.bfloat16, "bfloat16 x: the result is not bfloat16; return x's dtype (cast back at the end)"
    )
    expected = rotary(rounded, positions)
    expect_close(
        out,
        expected,
        "apply_rotary on a bfloat16 x at positions 40, 77, 120, against float64 on the same bfloat16 values (compute "
        "the angles, cos and sin in float32: bfloat16 holds an angle of 100 only to about 0.25)",
        atol=3 * BF16_U * rounded.abs().max().item(),
        rtol=2 * BF16_U,
    )
    wide = seeded((2, 3, 6), g).double()
    far = torch.tensor([123_457, 250_001, 999_999])
    out = _turn(student, wide, far, what="apply_rotary on a float64 x at positions near 10^6")
    expect(out.dtype == torch.float64, "float64 x: the result is not float64; return x's dtype")
    expect_close(
        out,
        rotary(wide, far),
        "apply_rotary on a float64 x at positions 123457, 250001, 999999 (compute the angles, cos and sin in float64 "
        "when x is float64: float32 angles there are off by up to about 0.03 radians)",
        atol=F64_TOL,
        rtol=F64_TOL,
    )
    small = torch.tensor([4, 0, 9], dtype=torch.int32)
    out = _turn(student, x, small, what="apply_rotary with int32 positions")
    expect_close(out, rotary(x, small).float(), "apply_rotary with int32 positions 4, 0, 9", atol=ATOL, rtol=RTOL)


RUN_DEVICE = """
out = apply_rotary(x.to(device), positions.to(device))
result = {"found": [out.device.type, str(out.dtype), list(out.shape)] if isinstance(out, torch.Tensor) else None}
"""


@question("rotary_tests")
@behaviour(
    "apply_rotary",
    "x and positions on another device (the meta device stands in for a GPU): the angles made on x's device",
    mutant="rotary_tables_on_cpu",
    kind="device",
)
def test_runs_on_the_device_of_its_input(student):
    x, positions = seeded((2, 3, 6), torch.Generator().manual_seed(690)), torch.tensor([2, 3, 4])
    what = "apply_rotary with x of shape (2, 3, 6) and positions on the meta device (a stand-in for a GPU)"
    try:
        out = student.run(RUN_DEVICE, x=x, positions=positions, device="meta")
    except StudentCodeError as error:
        raise GradingFailure(f"{what}: your code raised {error}; make every tensor on x's device") from None
    found = out.get("found") if isinstance(out, dict) else None
    expect(
        found == ["meta", "torch.float32", [2, 3, 6]],
        f"{what}: the result is not a float32 tensor of shape (2, 3, 6) on the meta device",
    )


RUN_GRADIENT = """
x = x.clone().requires_grad_(True)
before = x.detach().clone()
out = apply_rotary(x, positions)
unchanged = bool(torch.equal(x.detach(), before))
grad = None
if isinstance(out, torch.Tensor) and out.requires_grad:
    (out * upstream).sum().backward()
    grad = x.grad
result = {"out": out.detach() if isinstance(out, torch.Tensor) else None, "grad": grad, "unchanged": unchanged}
"""


@question("rotary_tests")
@behaviour("apply_rotary", "gradients reach x (the turn is differentiable)", mutant="rotary_detach_as_copy")
def test_gradients_reach_x(student):
    g = torch.Generator().manual_seed(700)
    x, upstream, positions = seeded((2, 4, 6), g), seeded((2, 4, 6), g), torch.tensor([3, 1, 4, 15])
    out = _run(student, "gradients through apply_rotary", RUN_GRADIENT, x=x, upstream=upstream, positions=positions)
    expect(isinstance(out, dict), "the grader could not read apply_rotary's gradient")
    expect(
        isinstance(out.get("grad"), torch.Tensor),
        "no gradient reached x through apply_rotary: keep the result differentiable (no detach, no torch.no_grad; "
        "x.clone() copies and keeps the gradient, x.detach() does not)",
    )
    # the gradient of a rotation is the turn the other way: the upstream gradient turned at -positions
    expect_close(
        out["grad"],
        rotary(upstream, -positions).float(),
        "the gradient of x through apply_rotary, against the upstream gradient turned back",
        atol=ATOL,
        rtol=RTOL,
    )


RUN_UNMODIFIED = """
before = x.clone()
out = apply_rotary(x, positions)
result = {"out": out, "unchanged": bool(torch.equal(x, before))}
"""


@question("rotary_tests")
@behaviour("apply_rotary", "x is left as it was (nothing written into it)", mutant="rotary_in_place")
def test_leaves_its_input_unmodified(student):
    x, positions = seeded((2, 3, 8), torch.Generator().manual_seed(710)), torch.tensor([5, 6, 7])
    out = _run(student, "apply_rotary and its input", RUN_UNMODIFIED, x=x, positions=positions)
    expect(isinstance(out, dict), "the grader could not read what apply_rotary returned")
    expect(
        out.get("unchanged") is True,
        "apply_rotary changed its input x: leave x as it is (work on slices' copies, or build a new tensor)",
    )


RUN_IN_TURN = """
result = [apply_rotary(a, at_a), apply_rotary(a, at_a, base=100.0), apply_rotary(b, at_b),
          apply_rotary(c, at_c, base=500.5), apply_rotary(a, at_a)]
"""


@question("rotary_tests")
@behaviour(
    "apply_rotary",
    "calls in turn with other bases, hidden sizes and positions: nothing kept between calls",
    mutant="rotary_table_cached_by_hidden",
    kind="state",
)
def test_calls_in_turn_keep_nothing(student):
    g = torch.Generator().manual_seed(720)
    a, b, c = seeded((2, 3, 6), g), seeded((1, 4, 6), g), seeded((2, 2, 4), g)
    at_a, at_b, at_c = torch.tensor([0, 1, 2]), torch.tensor([70, 71, 72, 300]), torch.tensor([9, 3])
    out = _run(student, "calls in turn", RUN_IN_TURN, a=a, b=b, c=c, at_a=at_a, at_b=at_b, at_c=at_c)
    expected = [
        rotary(a, at_a),
        rotary(a, at_a, 100.0),
        rotary(b, at_b),
        rotary(c, at_c, 500.5),
        rotary(a, at_a),
    ]
    calls = [
        "x of shape (2, 3, 6) at positions 0..2",
        "the same x with base=100.0",
        "x of shape (1, 4, 6) at positions 70, 71, 72, 300",
        "x of shape (2, 2, 4) with base=500.5",
        "the first call again",
    ]
    expect(isinstance(out, list) and len(out) == 5, "the grader could not read the results of five calls in turn")
    for got, want, call in zip(out, expected, calls):
        expect_close(
            got,
            want.float(),
            f"five calls in turn, {call}: each call must depend on its own arguments only (keep no table of angles "
            f"from an earlier call, or key it by everything it depends on)",
            atol=ATOL,
            rtol=RTOL,
        )


OUT_OF_SCOPE = [
    ("apply_rotary", "randomness", "Nothing is random: the angles are a formula of the positions.", "randomness"),
    (
        "apply_rotary",
        "argument checks and their order",
        "The skeleton states no argument checks: the tests pass an even hidden size and one position per row.",
        "validation-order",
    ),
    (
        "apply_rotary",
        "a threshold compared with > or >=",
        "apply_rotary compares nothing with a threshold.",
        "boundary",
    ),
    ("apply_rotary", "ties", "Nothing is sorted or ranked.", "ties"),
    (
        "apply_rotary",
        "optimisation steps",
        "apply_rotary takes no optimisation step and has no parameters; its gradient is compared with the turn back.",
        "step-tolerance",
    ),
    (
        "apply_rotary",
        "the angles, cos and sin in float64 for float32 x, or the product in float32 for bfloat16 x",
        "The skeleton sets a floor (float32, float64 for float64 x), not a ceiling; wider work keeps full marks.",
    ),
]

CONTRACT_PARAMETERS = [
    (
        "apply_rotary",
        "x",
        "(batch, seq, hidden) with batch 1, 2, 3, seq 1 to 9, hidden 2, 4, 6, 8, 10; float32, float64, bfloat16; CPU "
        "and meta; requiring gradients",
        None,
    ),
    (
        "apply_rotary",
        "positions",
        "int64 and int32; 0 alone, 0..seq - 1, chunks from 1, 2, 3, 4, 6, 8, 10, positions in no order and repeated, "
        "up to 999999",
        None,
    ),
    ("apply_rotary", "base", "the default (10000.0), 100.0, 500.5", None),
]
