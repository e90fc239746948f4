"""Hidden tests: scaled dot-product attention.

Oracle: ``F.scaled_dot_product_attention`` (with an explicit softmax for the weights). Shapes are
(batch, heads, seq, head_dim) with every dimension different so transposes cannot hide.
"""

import math

import torch
import torch.nn.functional as F

from assignments.grading.testkit import behaviour, expect, expect_close, expect_shape, question
from autograder.transformers.inputs import padding_mask

SHAPES = [(2, 3, 5, 4), (3, 2, 7, 16), (1, 4, 6, 8)]  # batch, heads, seq, head_dim
# The edge: one sentence, one head, one token (its only key gets all the attention), unmasked.
EDGE = (1, 1, 1, 3)


def reference_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask[:, None, None, :], float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    keep = None if mask is None else ~mask[:, None, None, :]
    values = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    return values, weights


CALL = (
    "values, attention = scaled_dot_product(q, k, v, attn_drop_rate=0.0, mask=mask)\n"
    "result = {'values': values, 'attention': attention}"
)
# The same call, also reporting whether q, k and v are unchanged afterwards (the grader keeps its own copies).
CALL_UNCHANGED = (
    "sent = [q.clone(), k.clone(), v.clone()]\n"
    + CALL
    + "\nresult['unchanged'] = all(torch.equal(a, b) for a, b in zip(sent, (q, k, v)))"
)


@question("scaled_dot_product_tests")
@behaviour("scaled_dot_product", "scores scaled by sqrt(head_dim)", mutant="sdp_scale_by_dk")
@behaviour(
    "scaled_dot_product",
    "the scale sqrt(head_dim) where it is not a whole number (head_dim 3 and 8)",
    mutant="sdp_scale_integer_sqrt",
    kind="non-integer",
)
@behaviour("scaled_dot_product", "softmax over the keys", mutant="sdp_softmax_wrong_axis")
@behaviour("scaled_dot_product", "input mutation: q, k, v left unmodified", mutant="sdp_scales_query_in_place")
def test_matches_reference_without_mask(student):
    g = torch.Generator().manual_seed(101)
    for shape in [*SHAPES, EDGE]:
        q, k, v = (torch.randn(*shape, generator=g) for _ in range(3))
        out = student.run(CALL_UNCHANGED, q=q, k=k, v=v, mask=None)
        expected_values, expected_weights = reference_attention(q, k, v)
        expect(
            out["unchanged"] is True,
            "scaled_dot_product changed q, k or v: scale a new tensor "
            "(q @ k^T / sqrt(head_dim)), never the inputs in place",
        )
        B, H, S, D = shape
        expect_shape(out["attention"], (B, H, S, S), f"attention for q of shape {shape}")
        expect_close(
            out["attention"],
            expected_weights,
            f"attention weights for shape {shape} (softmax over keys of q·kᵀ/sqrt(head_dim))",
            rtol=1e-4,
            atol=1e-5,
        )
        expect_close(out["values"], expected_values, f"values for shape {shape}", rtol=1e-4, atol=1e-5)


@question("scaled_dot_product_tests")
@behaviour("scaled_dot_product", "padding hides key columns, not query rows", mutant="sdp_mask_query_rows")
@behaviour("scaled_dot_product", "mask applied before the softmax", mutant="sdp_mask_after_softmax")
@behaviour(
    "scaled_dot_product",
    "a batch of one sentence with a padding mask (its mask of shape (1, seq))",
    mutant="sdp_mask_squeezed",
    kind="batch-of-one",
)
def test_padding_mask(student):
    g = torch.Generator().manual_seed(202)
    for shape in SHAPES:
        B, H, S, D = shape
        q, k, v = (torch.randn(*shape, generator=g) for _ in range(3))
        mask = padding_mask(B, S, g)
        mask[0, 1:] = True  # the edge: a sentence of one real token (no sentence is all padding)
        changed_v = torch.where(mask[:, None, :, None], torch.randn(*shape, generator=g) * 100, v)
        out = student.run(CALL, q=q, k=k, v=v, mask=mask)
        again = student.run(CALL, q=q, k=k, v=changed_v, mask=mask)
        attention = expect_shape(out["attention"], (B, H, S, S), f"attention for shape {shape}")
        to_pads = attention.masked_select(mask[:, None, None, :].expand(B, H, S, S))
        worst = to_pads.abs().max().item() if to_pads.numel() else 0.0
        expect(
            worst == 0.0,
            f"padded keys (mask == True, the key columns) must get exactly 0 attention "
            f"from every query; got up to {worst:.3g}",
        )
        sums = attention.sum(-1)
        expect(
            torch.allclose(sums, torch.ones_like(sums), atol=1e-5),
            f"each query's attention must sum to 1 over the keys; got sums between "
            f"{sums.min().item():.4f} and {sums.max().item():.4f}",
        )
        expected_values, expected_weights = reference_attention(q, k, v, mask)
        expect_close(out["attention"], expected_weights, f"masked attention for shape {shape}")
        expect_close(out["values"], expected_values, f"masked values for shape {shape}")
        expect_close(
            again["values"],
            out["values"],
            "values after changing only the padded positions of v (they must not matter)",
        )


@question("scaled_dot_product_tests", points=1)
@behaviour(
    "scaled_dot_product",
    "train mode: dropout on the weights at the given rate, survivors rescaled",
    mutant="sdp_dropout_ignored",
)
@behaviour(
    "scaled_dot_product",
    "randomness: each weight dropped on its own, not one mask shared by every sentence and head",
    mutant="sdp_dropout_mask_shared_across_heads",
    kind="randomness",
)
@behaviour(
    "scaled_dot_product",
    "attn_drop_rate 1.0 drops every weight: attention and values all zeros, no NaN",
    mutant="sdp_manual_dropout_nan_at_rate_one",
    kind="degenerate",
)
def test_dropout_on_weights(student):
    # 2*2*64*64 = 16,384 weights per rate, each dropped with probability p: sigma of the dropped fraction is
    # sqrt(p (1 - p) / 16384), 0.0036 at p = 0.3 and 0.0038 at p = 0.6, so 5 sigma is under 0.02, the bound.
    # Independence: the 4 (sentence, head) slices hold 4,096 weights each; two slices dropped independently
    # agree (both dropped or both kept) at p^2 + (1 - p)^2 of the positions, 0.58 at p = 0.3 and 0.52 at
    # p = 0.6, with sigma sqrt(0.58 * 0.42 / 4096) = 0.0077: the bound 0.7 is over 15 sigma above both, and
    # one mask shared by every slice agrees everywhere (1.0).
    # At p = 1 dropout drops everything (F.dropout and nn.Dropout give zeros); a hand-made mask that divides
    # by 1 - p gives 0 / 0 = NaN there.
    g = torch.Generator().manual_seed(303)
    q, k, v = (torch.randn(2, 2, 64, 8, generator=g) for _ in range(3))
    code = (
        "result = []\n"
        "for rate in rates:\n"
        "    values, attention = scaled_dot_product(q.clone(), k.clone(), v.clone(), attn_drop_rate=rate, mask=None)\n"
        "    result.append({'values': values, 'attention': attention})"
    )
    # The kept weights are compared with the function's own weights at rate 0, so a wrong scale or softmax
    # costs points in test_matches_reference_without_mask only, under its own message.
    rates = (0.0, 0.3, 0.6, 1.0)
    outs = student.run(code, q=q, k=k, v=v, rates=list(rates))
    expect(isinstance(outs, list) and len(outs) == len(rates), "scaled_dot_product must return (values, attention)")
    weights = expect_shape(outs[0]["attention"], (2, 2, 64, 64), "attention with attn_drop_rate=0.0")
    for rate, out in zip(rates[1:], outs[1:]):
        attention = expect_shape(out["attention"], (2, 2, 64, 64), f"attention with attn_drop_rate={rate}")
        if rate == 1.0:
            values = expect_shape(out["values"], (2, 2, 64, 8), "values with attn_drop_rate=1.0")
            left = int((attention != 0).sum() + (values != 0).sum())  # NaN != 0 counts too
            expect(
                left == 0,
                f"with attn_drop_rate=1.0 dropout drops every attention weight, so the attention and the values "
                f"must be all zeros (as F.dropout with p=1.0 gives); {left} entries were not 0 (NaN included): "
                "a hand-made dropout must not divide 0 by 1 - p = 0",
            )
            continue
        dropped = (attention == 0).float().mean().item()
        expect(
            abs(dropped - rate) < 0.02,
            f"with attn_drop_rate={rate} about {100 * rate:.0f}% of the attention weights should be zeroed; "
            f"got {100 * dropped:.1f}%",
        )
        slices = (attention == 0).reshape(4, -1)  # one row per (sentence, head)
        agreement = max((slices[i] == slices[j]).float().mean().item() for i in range(4) for j in range(i + 1, 4))
        expect(
            agreement < 0.7,
            f"with attn_drop_rate={rate} two (sentence, head) slices of the attention dropped the same weights at "
            f"{100 * agreement:.0f}% of the positions (independent dropout agrees at about "
            f"{100 * (rate**2 + (1 - rate) ** 2):.0f}%): dropout must drop each weight on its own, with a mask "
            "of the attention's full shape (batch, heads, seq, seq)",
        )
        kept = attention != 0
        expect_close(
            attention[kept],
            weights[kept] / (1 - rate),
            f"kept attention weights at attn_drop_rate={rate}, against your weights at rate 0 (dropout must "
            "rescale them by 1/(1-p))",
            rtol=1e-4,
            atol=1e-6,
        )
        expect_close(
            out["values"],
            attention @ v,
            f"values at attn_drop_rate={rate} (they must be the dropped-out attention times v)",
            rtol=1e-4,
            atol=1e-5,
        )


@question("scaled_dot_product_tests", points=0.5)
@behaviour(
    "scaled_dot_product",
    "device and dtype: what it returns (and every tensor it makes) follows q, k and v",
    mutant="sdp_dropout_mask_on_cpu",
    kind="device",
)
def test_follows_input_device_and_dtype(student):
    # PyTorch's 'meta' device stands for an accelerator (grading hides GPUs): tensors there have shapes but no
    # data, and mixing them with CPU tensors fails as mixing CUDA and CPU tensors does. The reference runs there
    # (softmax, masked_fill, F.dropout), so a tensor made on the CPU, a dropout mask say, is the only way to fail.
    # float64 inputs must give float64 outputs. Dropout is on (rate 0.3), since that is where masks get made.
    g = torch.Generator().manual_seed(313)
    q, k, v = (torch.randn(2, 3, 5, 4, generator=g) for _ in range(3))
    mask = padding_mask(2, 5, g)
    code = (
        "result = []\n"
        "for device, dtype in cases:\n"
        "    try:\n"
        "        sent = [t.to(device=device, dtype=getattr(torch, dtype)) for t in (q, k, v)]\n"
        "        values, attention = scaled_dot_product(*sent, attn_drop_rate=0.3, mask=mask.to(device))\n"
        "        result.append([str(values.device), str(values.dtype), str(attention.device), str(attention.dtype)])\n"
        "    except Exception:\n"
        "        result.append(None)\n"
    )
    cases = [["meta", "float32"], ["cpu", "float64"]]
    outs = student.run(code, q=q, k=k, v=v, mask=mask, cases=cases)
    for (device, dtype), out in zip(cases, outs):
        expected = [device, f"torch.{dtype}"] * 2
        expect(
            out == expected,
            f"scaled_dot_product on {dtype} q, k, v and a mask on the '{device}' device (a stand-in for a GPU), "
            f"with attn_drop_rate=0.3, "
            + ("raised an error" if out is None else "returned values or attention on another device or dtype")
            + ": every tensor it makes (a dropout mask, a scale) must be made on q's device and dtype "
            "(torch.rand_like(attention), or device=q.device)",
        )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "scaled_dot_product",
        "randomness: which generator dropout draws from",
        "The caller decides the mode and the function takes no generator, so only the dropped fraction (5 sigma) and the rescaling are contract.",
    ),
    (
        "scaled_dot_product",
        "gradient flow",
        "It has no parameters, and the training tests of later questions run the stand-in, so no test could charge a detach here to this question.",
    ),
    (
        "scaled_dot_product",
        "validation order",
        "It checks no argument, and its one special case, mask None, is tested both ways.",
        "validation-order",
    ),
    (
        "scaled_dot_product",
        "exact boundaries",
        "It compares nothing with a threshold of its own; a hand-made dropout's rand < p against <= differs only where a float32 draw equals p exactly, about once in 16 million weights.",
        "boundary",
    ),
    ("scaled_dot_product", "a sort's ties", "scaled_dot_product sorts and ranks nothing.", "ties"),
    (
        "scaled_dot_product",
        "state across calls",
        "A function of its arguments alone: it keeps nothing from one call to the next.",
        "state",
    ),
    (
        "scaled_dot_product",
        "optimisation steps",
        "It takes no optimisation step; the training steps of later questions run the stand-in.",
        "step-tolerance",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    (
        "scaled_dot_product",
        "q",
        "(batch, heads, seq, head_dim) (2, 3, 5, 4), (3, 2, 7, 16), (1, 4, 6, 8), (1, 1, 1, 3), (2, 2, 64, 8); "
        "float32 on the CPU, float32 on the meta device, float64",
        None,
    ),
    ("scaled_dot_product", "k", "(2, 3, 5, 4), (3, 2, 7, 16), (1, 4, 6, 8), (1, 1, 1, 3), (2, 2, 64, 8), as q", None),
    ("scaled_dot_product", "v", "(2, 3, 5, 4), (3, 2, 7, 16), (1, 4, 6, 8), (1, 1, 1, 3), (2, 2, 64, 8), as q", None),
    ("scaled_dot_product", "attn_drop_rate", "0.0, 0.3, 0.6, 1.0", None),
    (
        "scaled_dot_product",
        "mask",
        "None, bool padding masks whose rows keep 1 to seq real tokens, on the CPU and the meta device",
        None,
    ),
]
