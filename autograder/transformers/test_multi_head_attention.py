"""Hidden tests: multi-head attention.

Oracle: ``nn.MultiheadAttention(E, H, batch_first=True)`` with the grader's weights copied into the
student's names.
"""

import torch
import torch.nn as nn

from assignments.grading.testkit import expect, expect_close, kernel_value, question
from autograder.transformers.inputs import padding_mask

MHA_CASES = [(2, 5, 12, 3), (3, 7, 16, 4), (1, 6, 8, 1)]  # batch, seq, embed_dim, heads


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
    "mha = MultiHeadAttention(E, H, rate)\n"
    "mha.load_state_dict(state)\n"
    "mha.eval()\n"
    "with torch.no_grad():\n"
    "    result = mha(x, mask)\n"
)


@question("multi_head_attention_tests", points=2)
def test_mha_matches_pytorch(student):
    g = torch.Generator().manual_seed(404)
    for B, S, E, H in MHA_CASES:
        oracle, state = oracle_mha(E, H, g)
        x = torch.randn(B, S, E, generator=g)
        mask = padding_mask(B, S, g)
        for m in (None, mask):
            out = student.run(MHA_CALL, stand_ins=("scaled_dot_product",), E=E, H=H, rate=0.0, state=state, x=x, mask=m)
            with torch.no_grad():
                expected, _ = oracle(x, x, x, key_padding_mask=m, need_weights=False)
            what = f"output for batch={B}, seq={S}, embed_dim={E}, heads={H}, " + (
                "with padding" if m is not None else "no mask"
            )
            expect_close(out, expected, what, rtol=1e-4, atol=1e-5)


@question("multi_head_attention_tests", points=1)
def test_mha_dropout_only_in_training(student):
    g = torch.Generator().manual_seed(505)
    B, S, E, H = 2, 9, 16, 4
    oracle, state = oracle_mha(E, H, g)
    x = torch.randn(B, S, E, generator=g)
    code = (
        "mha = MultiHeadAttention(E, H, 0.5)\n"
        "mha.load_state_dict(state)\n"
        "mha.eval()\n"
        "with torch.no_grad():\n"
        "    eval_a, eval_b = mha(x, None), mha(x, None)\n"
        "mha.train()\n"
        "with torch.no_grad():\n"
        "    train_a, train_b = mha(x, None), mha(x, None)\n"
        "result = [eval_a, eval_b, train_a, train_b]"
    )
    eval_a, eval_b, train_a, train_b = student.run(code, stand_ins=("scaled_dot_product",), E=E, H=H, state=state, x=x)
    with torch.no_grad():
        expected, _ = oracle(x, x, x, need_weights=False)
    expect_close(eval_a, expected, "output in eval mode with attn_drop_rate=0.5 (dropout must be off)")
    expect_close(eval_b, eval_a, "a second eval-mode call (must be deterministic)")
    expect(
        not torch.allclose(train_a, train_b),
        "in training mode with attn_drop_rate=0.5 two calls should differ (attention dropout is on)",
    )


@question("multi_head_attention_tests", points=1)
def test_mha_parameters(student):
    code = (
        "mha = MultiHeadAttention(20, 5, 0.1)\n"
        "result = {name: torch.tensor(list(p.shape)) for name, p in mha.named_parameters()}"
    )
    shapes = student.run(code)
    expected = {"qkv_proj.weight": [60, 20], "qkv_proj.bias": [60], "o_proj.weight": [20, 20], "o_proj.bias": [20]}
    got = {name: shape.tolist() for name, shape in shapes.items()}
    # The names are the kernel's: the message lists the grader's names and quotes the kernel's only
    # through kernel_value, so a reply cannot carry text out through feedback.
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    wrong = sorted(name for name in set(expected) & set(got) if got[name] != expected[name])
    expect(
        got == expected,
        f"MultiHeadAttention(20, 5, 0.1) should have exactly the parameters "
        f"{sorted(expected)} with shapes (3E, E), (3E,), (E, E), (E,); missing: {missing}, "
        f"wrong shape: {wrong}, {len(extra)} unexpected" + (f" (first: {kernel_value(extra[0])})" if extra else ""),
    )
