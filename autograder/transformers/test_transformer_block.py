"""Hidden tests: the post-LayerNorm transformer block.

Oracle for the block: ``nn.TransformerEncoderLayer(E, H, 4E, dropout=0, activation="gelu",
batch_first=True)`` (post-LayerNorm, the default norm_first=False) with weights copied into the
student's names. The oracle runs in training mode so PyTorch's inference fast path is never taken
(with dropout=0 training mode computes the same function).
"""

import torch
import torch.nn as nn

from assignments.grading.testkit import behaviour, expect, expect_close, question
from autograder.transformers.checks import LOAD
from autograder.transformers.inputs import grader_weights, padding_mask
from autograder.transformers.oracles import reference

ATTENTION = ("scaled_dot_product", "MultiHeadAttention")
BLOCK_CASES = [(2, 6, 12, 3), (3, 5, 16, 4), (1, 4, 8, 2)]  # batch, seq, embed_dim, heads
NOT_LOADED = (
    "the grader could not load its weights into TransformerBlock by name: it needs exactly self_attn "
    "(qkv_proj, o_proj), norm1, norm2 (nn.LayerNorm) and linear_net = nn.Sequential(nn.Linear(E, 4E), nn.GELU(), "
    "nn.Linear(4E, E), nn.Dropout(layer_drop_rate)) as parameters (buffers are fine)"
)


def oracle_layer(E, H, generator):
    layer = nn.TransformerEncoderLayer(E, H, 4 * E, dropout=0.0, activation="gelu", batch_first=True)
    with torch.no_grad():
        for name, p in layer.named_parameters():
            if name.startswith("norm"):
                p.copy_((1.0 if name.endswith("weight") else 0.0) + 0.2 * torch.randn(p.shape, generator=generator))
            else:
                p.copy_(torch.randn(p.shape, generator=generator) * 0.3)
    layer.train()
    return layer


def block_state(layer, prefix=""):
    pairs = {
        "self_attn.qkv_proj.weight": layer.self_attn.in_proj_weight,
        "self_attn.qkv_proj.bias": layer.self_attn.in_proj_bias,
        "self_attn.o_proj.weight": layer.self_attn.out_proj.weight,
        "self_attn.o_proj.bias": layer.self_attn.out_proj.bias,
        "linear_net.0.weight": layer.linear1.weight,
        "linear_net.0.bias": layer.linear1.bias,
        "linear_net.2.weight": layer.linear2.weight,
        "linear_net.2.bias": layer.linear2.bias,
        "norm1.weight": layer.norm1.weight,
        "norm1.bias": layer.norm1.bias,
        "norm2.weight": layer.norm2.weight,
        "norm2.bias": layer.norm2.bias,
    }
    return {prefix + name: p.detach().clone() for name, p in pairs.items()}


@question("transformer_block_tests", points=2)
@behaviour("TransformerBlock", "post-LN order: norm after each residual sum", mutant="block_pre_layernorm")
@behaviour("TransformerBlock", "residual around attention", mutant="block_missing_attention_residual")
@behaviour("TransformerBlock", "GELU in the position-wise network", mutant="block_relu_activation")
def test_block_matches_pytorch(student):
    g = torch.Generator().manual_seed(606)
    code = (
        "block = TransformerBlock(E, H, 0.3, 0.3)\n" + LOAD.format(name="block") + "block.eval()\n"
        "with torch.no_grad():\n"
        "    result = {'loaded': loaded, 'out': block((x, mask))[0] if loaded else None}\n"
    )
    for B, S, E, H in BLOCK_CASES:
        layer = oracle_layer(E, H, g)
        x = torch.randn(B, S, E, generator=g)
        mask = padding_mask(B, S, g)
        for m in (None, mask):
            out = student.run(code, stand_ins=ATTENTION, E=E, H=H, state=block_state(layer), x=x, mask=m)
            expect(out["loaded"] is True, NOT_LOADED)
            with torch.no_grad():
                expected = layer(x, src_key_padding_mask=m)
            expect_close(
                out["out"],
                expected,
                f"block output (batch={B}, seq={S}, embed_dim={E}, heads={H}, "
                f"{'with padding' if m is not None else 'no mask'}; eval mode)",
                rtol=1e-4,
                atol=1e-4,
            )


@question("transformer_block_tests")
@behaviour(
    "TransformerBlock", "returns the pair (embedding, mask) for nn.Sequential", mutant="block_returns_embedding_only"
)
def test_blocks_chain_in_sequential(student):
    g = torch.Generator().manual_seed(707)
    B, S, E, H = 2, 7, 8, 2
    layers = [oracle_layer(E, H, g) for _ in range(2)]
    state = {**block_state(layers[0], "0."), **block_state(layers[1], "1.")}
    x = torch.randn(B, S, E, generator=g)
    mask = padding_mask(B, S, g)
    code = (
        "stack = nn.Sequential(TransformerBlock(E, H, 0.0, 0.0), TransformerBlock(E, H, 0.0, 0.0))\n"
        + LOAD.format(name="stack")
        + "stack.eval()\n"
        "with torch.no_grad():\n"
        "    out = stack((x, mask))\n"
        "expect_pair = isinstance(out, (tuple, list)) and len(out) == 2\n"
        "result = {'loaded': loaded, 'pair': expect_pair, 'embedding': out[0] if expect_pair else None,\n"
        "          'mask': out[1] if expect_pair else None}"
    )
    out = student.run(code, stand_ins=ATTENTION, E=E, H=H, state=state, x=x, mask=mask)
    expect(out["loaded"] is True, NOT_LOADED)
    expect(out["pair"], "TransformerBlock.forward((embedding, mask)) must return the pair (embedding, mask)")
    expect(
        isinstance(out["mask"], torch.Tensor) and torch.equal(out["mask"], mask),
        "the mask must come out of the block unchanged so the next block can use it",
    )
    with torch.no_grad():
        expected = layers[1](layers[0](x, src_key_padding_mask=mask), src_key_padding_mask=mask)
    expect_close(out["embedding"], expected, "output of two blocks chained in nn.Sequential", atol=1e-4)


@question("transformer_block_tests")
@behaviour(
    "TransformerBlock",
    "train mode: dropout on the attention output before the residual sum",
    mutant="block_dropout_on_residual_sum",
)
@behaviour(
    "TransformerBlock",
    "randomness in every branch: both dropout sites draw in training mode, each at its rate",
    mutant="block_dropout_on_residual_sum",
    kind="randomness",
)
@behaviour(
    "TransformerBlock",
    "train mode: linear_net's dropout at layer_drop_rate",
    mutant="block_feed_forward_dropout_uses_attention_rate",
)
@behaviour(
    "TransformerBlock",
    "train mode: the attention output's dropout at layer_drop_rate, not attn_drop_rate",
    mutant="block_attention_output_dropout_uses_attention_rate",
)
def test_block_structure(student):
    # The structure is checked through the weights path the grader controls, never through what the kernel
    # reports: the grader's weights go in by name (every parameter name and shape the skeleton fixes), and
    # the block runs in training mode with each dropout rate at an end of its range, 0 (keep everything) or
    # 1 (drop everything). Both ends make dropout deterministic, so the output must equal the grader's
    # reference block's whatever order a correct block draws its random numbers in (any layout), and the
    # two settings tell the dropouts apart: attn_drop_rate 1 zeroes the attention weights (the attention
    # output is then o_proj's bias), layer_drop_rate 1 zeroes the attention output before the residual sum
    # and the feed-forward output. A block that drops another tensor (the residual sum), skips a dropout,
    # or gives one the other rate computes something else in one of the two settings; a block that never
    # enters training mode does too. A forging kernel earns this point only by reporting what a correct
    # block computes.
    ref = reference()
    g = torch.Generator().manual_seed(717)
    B, S, E, H = 3, 6, 12, 3
    torch.manual_seed(717)
    state = grader_weights(ref.TransformerBlock(E, H, 0.0, 0.0), g)
    x = torch.randn(B, S, E, generator=g)
    mask = padding_mask(B, S, g)
    code = (
        "result = []\n"
        "for attn_rate, layer_rate in rates:\n"
        "    block = TransformerBlock(E, H, attn_rate, layer_rate)\n"
        + "".join("    " + line + "\n" for line in LOAD.format(name="block").splitlines())
        + "    with torch.no_grad():\n"
        "        eval_out = block.eval()((x, mask))[0] if loaded else None\n"
        "        train_out = block.train()((x, mask))[0] if loaded else None\n"
        "    result.append({'loaded': loaded, 'eval': eval_out, 'train': train_out})\n"
    )
    rates = [(0.0, 1.0), (1.0, 0.0)]
    outs = student.run(code, stand_ins=ATTENTION, E=E, H=H, state=state, x=x, mask=mask, rates=rates)
    for (attn_rate, layer_rate), out in zip(rates, outs):
        expect(out["loaded"] is True, NOT_LOADED)
        oracle = ref.TransformerBlock(E, H, attn_rate, layer_rate)
        oracle.load_state_dict(state)
        with torch.no_grad():
            expected_eval = oracle.eval()((x, mask))[0]
            expected = oracle.train()((x, mask))[0]
        # A block already wrong in eval mode fails here too; say so, rather than point at the dropouts.
        eval_right = (
            isinstance(out["eval"], torch.Tensor)
            and out["eval"].shape == expected_eval.shape
            and bool(torch.allclose(out["eval"], expected_eval, rtol=1e-4, atol=1e-4))
        )
        expect(
            eval_right,
            "the block's output is already wrong in eval mode (the comparison with "
            "nn.TransformerEncoderLayer says how), so its training-mode output cannot match either",
        )
        expect_close(
            out["train"],
            expected,
            f"block output in training mode with attn_drop_rate {attn_rate:g} and layer_drop_rate {layer_rate:g} "
            "(a rate of 1 drops everything, 0 nothing): dropout(layer_drop_rate) goes on the attention output "
            "before it is added to the input, and linear_net's Dropout(layer_drop_rate) ends the feed-forward part",
            rtol=1e-4,
            atol=1e-5,
        )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "TransformerBlock",
        "randomness: the layout and order in which dropout draws its masks",
        "The training-mode test sets each rate to 0 or 1, where dropout is deterministic, so any draw order passes; variant block_sequence_first_layout keeps full marks.",
    ),
    (
        "TransformerBlock",
        "input mutation: an in-place residual (x += ...)",
        "It changes only the caller's embedding tensor, which MiniBERT never reads again, so no output a student sees or a test scores depends on it.",
    ),
    (
        "TransformerBlock",
        "validation order",
        "It checks no argument and has no special case of its own: the mask, None or not, only passes through to self_attn.",
        "validation-order",
    ),
    (
        "TransformerBlock",
        "exact boundaries",
        "It compares nothing with a threshold; its rates go to nn.Dropout modules the skeleton names.",
        "boundary",
    ),
    ("TransformerBlock", "a sort's ties", "TransformerBlock sorts and ranks nothing.", "ties"),
    (
        "TransformerBlock",
        "degenerate values",
        "It has no branch on a value: its rates go to nn.Dropout, and the training-mode test already runs them at the degenerate ends 0 and 1.",
        "degenerate",
    ),
    (
        "TransformerBlock",
        "state across calls",
        "Its mode is its only state (eval and training outputs are both checked); forward keeps nothing from one call to the next.",
        "state",
    ),
    (
        "TransformerBlock",
        "device of what it makes",
        "forward makes no tensor of its own: it calls the modules the skeleton names, which follow the input.",
        "device",
    ),
    (
        "TransformerBlock",
        "hyper-parameters that are not whole numbers",
        "No arithmetic touches a hyper-parameter: the rates go unchanged into nn.Dropout, and the widths (E, 4E) are whole numbers.",
        "non-integer",
    ),
    (
        "TransformerBlock",
        "optimisation steps",
        "It takes no optimisation step; mlm_step's tests step the stand-in.",
        "step-tolerance",
    ),
    (
        "TransformerBlock",
        "a batch of one",
        "forward reshapes nothing, and a batch of one sentence, (1, 4, 8), is among test_block_matches_pytorch's cases.",
        "batch-of-one",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("TransformerBlock", "embed_dim", "8, 12, 16", None),
    ("TransformerBlock", "n_heads", "2, 3, 4", None),
    ("TransformerBlock", "attn_drop_rate", "0.0, 0.3, 1.0", None),
    ("TransformerBlock", "layer_drop_rate", "0.0, 0.3, 1.0", None),
    (
        "TransformerBlock.forward",
        "inputs",
        "pairs of embeddings (2, 6, 12), (3, 5, 16), (1, 4, 8), (2, 7, 8), (3, 6, 12) and a mask, None or padding",
        None,
    ),
]
