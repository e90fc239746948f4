"""Hidden tests: multi-head attention.

Oracle: ``nn.MultiheadAttention(E, H, batch_first=True)`` with the grader's weights copied into the
student's names.
"""

import torch
import torch.nn as nn

from assignments.grading.testkit import behaviour, expect, expect_close, question
from autograder.transformers.checks import LOAD
from autograder.transformers.inputs import padding_mask

MHA_CASES = [(2, 5, 12, 3), (3, 7, 16, 4), (1, 6, 8, 1), (1, 1, 4, 2)]  # batch, seq, embed_dim, heads
NOT_LOADED = (
    "the grader could not load its weights into MultiHeadAttention by name: it needs qkv_proj = "
    "nn.Linear(embed_dim, 3 * embed_dim) and o_proj = nn.Linear(embed_dim, embed_dim) and no other parameters "
    "(buffers are fine)"
)


def oracle_mha(E, H, generator):
    oracle = nn.MultiheadAttention(E, H, batch_first=True)
    with torch.no_grad():
        for p in oracle.parameters():
            p.copy_(torch.randn(p.shape, generator=generator) * 0.3)
    oracle.eval()
    state = {
        "qkv_proj.weight": oracle.in_proj_weight.detach().clone(),
        "qkv_proj.bias": oracle.in_proj_bias.detach().clone(),
        "o_proj.weight": oracle.out_proj.weight.detach().clone(),
        "o_proj.bias": oracle.out_proj.bias.detach().clone(),
    }
    return oracle, state


MHA_CALL = (
    "mha = MultiHeadAttention(E, H, rate)\n" + LOAD.format(name="mha") + "mha.eval()\n"
    "with torch.no_grad():\n"
    "    result = {'loaded': loaded, 'out': mha(x, mask) if loaded else None}\n"
)


@question("multi_head_attention_tests", points=2)
@behaviour("MultiHeadAttention", "heads split with view then transpose", mutant="mha_heads_reshaped_without_transpose")
@behaviour("MultiHeadAttention", "output projection o_proj", mutant="mha_no_output_projection")
def test_mha_matches_pytorch(student):
    g = torch.Generator().manual_seed(404)
    for B, S, E, H in MHA_CASES:
        oracle, state = oracle_mha(E, H, g)
        x = torch.randn(B, S, E, generator=g)
        masks = [None]
        if S > 1:  # a single token has no padding
            masks.append(padding_mask(B, S, g))
            masks[-1][0, 1:] = True  # the edge: a sentence of one real token
        for m in masks:
            out = student.run(MHA_CALL, stand_ins=("scaled_dot_product",), E=E, H=H, rate=0.0, state=state, x=x, mask=m)
            expect(out["loaded"] is True, NOT_LOADED)
            with torch.no_grad():
                expected, _ = oracle(x, x, x, key_padding_mask=m, need_weights=False)
            what = f"output for batch={B}, seq={S}, embed_dim={E}, heads={H}, " + (
                "with padding" if m is not None else "no mask"
            )
            expect_close(out["out"], expected, what, rtol=1e-4, atol=1e-5)


def revealing_state(E):
    """Weights under which the output is the dropped-out attention itself: queries and keys are 0, so each
    query attends uniformly, values and o_proj are the identity. With the input row of position j equal to
    e_j in every head's slice, output[b, i, h * head_dim + j] is head h's attention of query i to key j."""
    qkv = torch.zeros(3 * E, E)
    qkv[2 * E :] = torch.eye(E)
    return {
        "qkv_proj.weight": qkv,
        "qkv_proj.bias": torch.zeros(3 * E),
        "o_proj.weight": torch.eye(E),
        "o_proj.bias": torch.zeros(E),
    }


@question("multi_head_attention_tests")
@behaviour(
    "MultiHeadAttention", "train vs eval mode: attention dropout only while training", mutant="mha_dropout_in_eval"
)
@behaviour(
    "MultiHeadAttention",
    "randomness: the attention's dropout draws in training mode only, two training calls differ",
    mutant="mha_dropout_in_eval",
    kind="randomness",
)
@behaviour(
    "MultiHeadAttention",
    "train mode: the module's attn_drop_rate reaches the attention, survivors rescaled",
    mutant="mha_dropout_default_rate",
)
def test_mha_dropout_only_in_training(student):
    g = torch.Generator().manual_seed(505)
    B, S, E, H = 2, 9, 16, 4
    oracle, state = oracle_mha(E, H, g)
    x = torch.randn(B, S, E, generator=g)
    code = (
        "mha = MultiHeadAttention(E, H, 0.5)\n" + LOAD.format(name="mha") + "if loaded:\n"
        "    mha.eval()\n"
        "    with torch.no_grad():\n"
        "        eval_a, eval_b = mha(x, None), mha(x, None)\n"
        "    mha.train()\n"
        "    with torch.no_grad():\n"
        "        train_a, train_b = mha(x, None), mha(x, None)\n"
        "    result = [eval_a, eval_b, train_a, train_b]\n"
        "else:\n"
        "    result = None\n"
    )
    out = student.run(code, stand_ins=("scaled_dot_product",), E=E, H=H, state=state, x=x)
    expect(out is not None, NOT_LOADED)
    eval_a, eval_b, train_a, train_b = out
    with torch.no_grad():
        expected, _ = oracle(x, x, x, need_weights=False)
    expect_close(eval_a, expected, "output in eval mode with attn_drop_rate=0.5 (dropout must be off)")
    expect_close(eval_b, eval_a, "a second eval-mode call (must be deterministic)")
    expect(
        not torch.allclose(train_a, train_b),
        "in training mode with attn_drop_rate=0.5 two calls should differ (attention dropout is on)",
    )
    # The rate itself, read off the output whatever order the dropout draws in: under revealing_state each
    # output entry is one attention weight, 1/S before dropout, so a kept weight is exactly 1/(S (1 - p)).
    # 32 sentences x 8 queries x 8 keys x 2 heads = 4,096 weights: sigma of the dropped fraction is
    # sqrt(p (1 - p) / 4096), 0.0078 at p = 0.5 and 0.0063 at p = 0.2; the bound 0.04 is over 5 sigma.
    B, S, E, H = 32, 8, 16, 2
    x = torch.zeros(B, S, E)
    for j in range(S):
        x[:, j, j] = x[:, j, 8 + j] = 1.0  # e_j in both heads' slices (head_dim 8)
    rates = (0.5, 0.2)
    code = (
        "result = []\n"
        "for rate in rates:\n"
        "    mha = MultiHeadAttention(E, H, rate)\n"
        + "".join("    " + line + "\n" for line in LOAD.format(name="mha").splitlines())
        + "    mha.train()\n"
        "    with torch.no_grad():\n"
        "        result.append(mha(x, None) if loaded else None)\n"
    )
    outs = student.run(
        code, stand_ins=("scaled_dot_product",), E=E, H=H, state=revealing_state(E), x=x, rates=list(rates)
    )
    for rate, out in zip(rates, outs):
        expect(out is not None, NOT_LOADED)
        expect(
            isinstance(out, torch.Tensor) and out.shape == (B, S, E),
            f"MultiHeadAttention's output for a (32, 8, 16) input should have shape (32, 8, 16) (rate {rate})",
        )
        kept_value = 1 / (S * (1 - rate))
        dropped = (out == 0).float().mean().item()
        off = ((out - kept_value).abs() > 1e-5) & (out != 0)
        expect(
            not bool(off.any()) and abs(dropped - rate) < 0.04,
            f"in training mode with attn_drop_rate={rate}, {100 * dropped:.1f}% of the attention weights were "
            f"dropped (expected about {100 * rate:.0f}%) and {int(off.sum())} kept weights were not rescaled "
            f"by 1/(1-{rate}): pass self.attn_drop_rate to scaled_dot_product while training",
        )


@question("multi_head_attention_tests")
@behaviour("MultiHeadAttention", "parameter names and shapes (one qkv_proj)", mutant="mha_separate_qkv_projections")
def test_mha_parameters(student):
    code = (
        "mha = MultiHeadAttention(20, 5, 0.1)\n"
        "result = {name: torch.tensor(list(p.shape)) for name, p in mha.named_parameters()}"
    )
    shapes = student.run(code)
    expected = {"qkv_proj.weight": [60, 20], "qkv_proj.bias": [60], "o_proj.weight": [20, 20], "o_proj.bias": [20]}
    got = {name: shape.tolist() for name, shape in shapes.items()}
    # The names are the kernel's: the message lists the grader's names and counts the kernel's, so a reply
    # cannot carry text out through feedback (issue #43).
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    wrong = sorted(name for name in set(expected) & set(got) if got[name] != expected[name])
    expect(
        got == expected,
        f"MultiHeadAttention(20, 5, 0.1) should have exactly the parameters "
        f"{sorted(expected)} with shapes (3E, E), (3E,), (E, E), (E,); missing: {missing}, "
        f"wrong shape: {wrong}, {len(extra)} unexpected",
    )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "MultiHeadAttention",
        "buffers (a stored scale, a mask) beside the two layers",
        "The skeleton fixes parameters, not buffers, so the loaders accept any buffer; variant mha_baddbmm_scale_buffer keeps full marks.",
    ),
    (
        "MultiHeadAttention",
        "gradient flow",
        "Its parameters are two nn.Linear layers the student only calls; the block's training-mode test and mlm_step's steps run the stand-in.",
    ),
    (
        "MultiHeadAttention",
        "validation order",
        "The skeleton asks for no argument check (embed_dim divisible by n_heads is the caller's promise), and forward's one special case, mask None, is tested both ways.",
        "validation-order",
    ),
    (
        "MultiHeadAttention",
        "exact boundaries",
        "It compares nothing with a threshold: the one rate it holds goes unchanged to scaled_dot_product (the stand-in).",
        "boundary",
    ),
    ("MultiHeadAttention", "a sort's ties", "MultiHeadAttention sorts and ranks nothing.", "ties"),
    (
        "MultiHeadAttention",
        "degenerate values",
        "It has no branch on a value of its own: one head, one token and a sentence of one real token are among test_mha_matches_pytorch's cases, and a rate of 0.0 only passes through to the stand-in.",
        "degenerate",
    ),
    (
        "MultiHeadAttention",
        "state across calls",
        "Its mode is its only state (two eval-mode calls must agree, two training calls differ); forward keeps nothing from one call to the next.",
        "state",
    ),
    (
        "MultiHeadAttention",
        "device of what it makes",
        "forward makes no tensor of its own: views of qkv_proj's output, the stand-in attention and o_proj, all on the input's device.",
        "device",
    ),
    (
        "MultiHeadAttention",
        "hyper-parameters that are not whole numbers",
        "embed_dim and n_heads are whole numbers and divisible by contract, so head_dim = embed_dim // n_heads is exact (a true division gives a float that view refuses in the visible check); the rate passes through and is read off the output at 0.5 and 0.2.",
        "non-integer",
    ),
    (
        "MultiHeadAttention",
        "optimisation steps",
        "It takes no optimisation step; mlm_step's tests step the stand-in.",
        "step-tolerance",
    ),
    (
        "MultiHeadAttention",
        "a batch of one",
        "forward takes the batch size from embedding.shape and squeezes nothing; the batch-of-one cases (1, 6, 8) and (1, 1, 4) run in test_mha_matches_pytorch.",
        "batch-of-one",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("MultiHeadAttention", "embed_dim", "4, 8, 12, 16, 20", None),
    ("MultiHeadAttention", "n_heads", "1, 2, 3, 4, 5", None),
    ("MultiHeadAttention", "attn_drop_rate", "0.0, 0.1, 0.2, 0.5", None),
    (
        "MultiHeadAttention.forward",
        "embedding",
        "(batch, seq, embed_dim) (2, 5, 12), (3, 7, 16), (1, 6, 8), (1, 1, 4), (2, 9, 16), (32, 8, 16)",
        None,
    ),
    ("MultiHeadAttention.forward", "mask", "None, bool padding masks whose rows keep 1 to seq real tokens", None),
]
