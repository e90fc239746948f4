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
def test_dropout_on_weights(student):
    # 2*2*64*64 = 16,384 weights per rate, each dropped with probability p: sigma of the dropped fraction is
    # sqrt(p (1 - p) / 16384), 0.0036 at p = 0.3 and 0.0038 at p = 0.6, so 5 sigma is under 0.02, the bound.
    g = torch.Generator().manual_seed(303)
    q, k, v = (torch.randn(2, 2, 64, 8, generator=g) for _ in range(3))
    code = (
        "result = []\n"
        "for rate in rates:\n"
        "    values, attention = scaled_dot_product(q, k, v, attn_drop_rate=rate, mask=None)\n"
        "    result.append({'values': values, 'attention': attention})"
    )
    rates = (0.3, 0.6)
    outs = student.run(code, q=q, k=k, v=v, rates=list(rates))
    expect(isinstance(outs, list) and len(outs) == len(rates), "scaled_dot_product must return (values, attention)")
    _, weights = reference_attention(q, k, v)
    for rate, out in zip(rates, outs):
        attention = expect_shape(out["attention"], (2, 2, 64, 64), f"attention with attn_drop_rate={rate}")
        dropped = (attention == 0).float().mean().item()
        expect(
            abs(dropped - rate) < 0.02,
            f"with attn_drop_rate={rate} about {100 * rate:.0f}% of the attention weights should be zeroed; "
            f"got {100 * dropped:.1f}%",
        )
        kept = attention != 0
        expect_close(
            attention[kept],
            weights[kept] / (1 - rate),
            f"kept attention weights at attn_drop_rate={rate} (dropout must rescale them by 1/(1-p))",
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
        "dtype and device",
        "Every caller passes float32 tensors on one device, and the function creates no tensor of its own but a view of the mask.",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    (
        "scaled_dot_product",
        "q",
        "(batch, heads, seq, head_dim) (2, 3, 5, 4), (3, 2, 7, 16), (1, 4, 6, 8), (1, 1, 1, 3), (2, 2, 64, 8)",
        None,
    ),
    ("scaled_dot_product", "k", "(2, 3, 5, 4), (3, 2, 7, 16), (1, 4, 6, 8), (1, 1, 1, 3), (2, 2, 64, 8), as q", None),
    ("scaled_dot_product", "v", "(2, 3, 5, 4), (3, 2, 7, 16), (1, 4, 6, 8), (1, 1, 1, 3), (2, 2, 64, 8), as q", None),
    ("scaled_dot_product", "attn_drop_rate", "0.0, 0.3, 0.6", None),
    ("scaled_dot_product", "mask", "None, bool padding masks whose rows keep 1 to seq real tokens", None),
]
