"""Hidden tests: the post-LayerNorm transformer block and MiniBERT.

Oracle for the block: ``nn.TransformerEncoderLayer(E, H, 4E, dropout=0, activation="gelu",
batch_first=True)`` (post-LayerNorm, the default norm_first=False) with weights copied into the
student's names. The oracle runs in training mode so PyTorch's inference fast path is never taken
(with dropout=0 training mode computes the same function).
"""

import torch
import torch.nn as nn

from assignments.grading.testkit.checks import expect, expect_close, expect_shape, kernel_value, question
from autograder.transformers.helpers import padding_mask, reference

ATTENTION = ("scaled_dot_product", "MultiHeadAttention")
BLOCK_CASES = [(2, 6, 12, 3), (3, 5, 16, 4)]   # batch, seq, embed_dim, heads


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
    pairs = {"self_attn.qkv_proj.weight": layer.self_attn.in_proj_weight,
             "self_attn.qkv_proj.bias": layer.self_attn.in_proj_bias,
             "self_attn.o_proj.weight": layer.self_attn.out_proj.weight,
             "self_attn.o_proj.bias": layer.self_attn.out_proj.bias,
             "linear_net.0.weight": layer.linear1.weight, "linear_net.0.bias": layer.linear1.bias,
             "linear_net.2.weight": layer.linear2.weight, "linear_net.2.bias": layer.linear2.bias,
             "norm1.weight": layer.norm1.weight, "norm1.bias": layer.norm1.bias,
             "norm2.weight": layer.norm2.weight, "norm2.bias": layer.norm2.bias}
    return {prefix + name: p.detach().clone() for name, p in pairs.items()}


@question("transformer_block_tests", points=2)
def test_block_matches_pytorch(student):
    g = torch.Generator().manual_seed(606)
    code = ("block = TransformerBlock(E, H, 0.3, 0.3)\n"
            "block.load_state_dict(state)\n"
            "block.eval()\n"
            "with torch.no_grad():\n"
            "    result = block((x, mask))[0]\n")
    for B, S, E, H in BLOCK_CASES:
        layer = oracle_layer(E, H, g)
        x = torch.randn(B, S, E, generator=g)
        mask = padding_mask(B, S, g)
        for m in (None, mask):
            out = student.run(code, stand_ins=ATTENTION, E=E, H=H, state=block_state(layer), x=x, mask=m)
            with torch.no_grad():
                expected = layer(x, src_key_padding_mask=m)
            expect_close(out, expected, f"block output (batch={B}, seq={S}, embed_dim={E}, heads={H}, "
                         f"{'with padding' if m is not None else 'no mask'}; eval mode)", rtol=1e-4, atol=1e-4)


@question("transformer_block_tests", points=1)
def test_blocks_chain_in_sequential(student):
    g = torch.Generator().manual_seed(707)
    B, S, E, H = 2, 7, 8, 2
    layers = [oracle_layer(E, H, g) for _ in range(2)]
    state = {**block_state(layers[0], "0."), **block_state(layers[1], "1.")}
    x = torch.randn(B, S, E, generator=g)
    mask = padding_mask(B, S, g)
    code = ("stack = nn.Sequential(TransformerBlock(E, H, 0.0, 0.0), TransformerBlock(E, H, 0.0, 0.0))\n"
            "stack.load_state_dict(state)\n"
            "stack.eval()\n"
            "with torch.no_grad():\n"
            "    out = stack((x, mask))\n"
            "expect_pair = isinstance(out, (tuple, list)) and len(out) == 2\n"
            "result = {'pair': expect_pair, 'embedding': out[0] if expect_pair else None,\n"
            "          'mask': out[1] if expect_pair else None}")
    out = student.run(code, stand_ins=ATTENTION, E=E, H=H, state=state, x=x, mask=mask)
    expect(out["pair"], "TransformerBlock.forward((embedding, mask)) must return the pair (embedding, mask)")
    expect(isinstance(out["mask"], torch.Tensor) and torch.equal(out["mask"], mask),
           "the mask must come out of the block unchanged so the next block can use it")
    with torch.no_grad():
        expected = layers[1](layers[0](x, src_key_padding_mask=mask), src_key_padding_mask=mask)
    expect_close(out["embedding"], expected, "output of two blocks chained in nn.Sequential", atol=1e-4)


LOAD = ("try:\n"
        "    {name}.load_state_dict(state)\n"
        "    loaded = True\n"
        "except (RuntimeError, KeyError, AttributeError, TypeError):\n"
        "    loaded = False\n")


def grader_weights(module, generator, scale=0.1):
    """``module``'s state after the grader moves every parameter away from its initialisation."""
    with torch.no_grad():
        for p in module.parameters():
            p.add_(torch.randn(p.shape, generator=generator) * scale)
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


@question("transformer_block_tests", points=1)
def test_block_structure(student):
    # The structure is checked through the weights path the grader controls, never through what the kernel
    # reports: the grader's weights go in by name with a strict load_state_dict (every attribute name and
    # shape the skeleton fixes), the block runs in training mode with both dropout rates on, and its output
    # must equal the grader's reference block run in training mode from the same torch seed. Dropout draws
    # its masks from the global generator in the order the data flows (attention weights, attention
    # output, feed-forward output), so a correct block draws the same masks as the reference; one that
    # drops another tensor (the residual sum, the GELU output), skips a dropout or uses the other rate
    # does not. A forging kernel earns this point only by reporting what a correct block computes.
    ref = reference()
    g = torch.Generator().manual_seed(717)
    B, S, E, H, seed = 3, 6, 12, 3, 718
    torch.manual_seed(717)
    oracle = ref.TransformerBlock(E, H, 0.25, 0.2)
    state = grader_weights(oracle, g)
    x = torch.randn(B, S, E, generator=g)
    mask = padding_mask(B, S, g)
    code = ("block = TransformerBlock(E, H, 0.25, 0.2)\n" + LOAD.format(name="block") +
            "with torch.no_grad():\n"
            "    eval_out = block.eval()((x, mask))[0] if loaded else None\n"
            "    block.train()\n"
            "    torch.manual_seed(seed)\n"
            "    out = block((x, mask))[0] if loaded else None\n"
            "result = {'loaded': loaded, 'eval': eval_out, 'out': out}")
    out = student.run(code, stand_ins=ATTENTION, E=E, H=H, state=state, x=x, mask=mask, seed=seed)
    expect(out["loaded"] is True, "the grader could not load its weights into TransformerBlock(12, 3, 0.25, 0.2) "
           "by name: it needs exactly self_attn (qkv_proj, o_proj), norm1, norm2 (nn.LayerNorm) and linear_net = "
           "nn.Sequential(nn.Linear(E, 4E), nn.GELU(), nn.Linear(4E, E), nn.Dropout(layer_drop_rate))")
    with torch.no_grad():
        expected_eval = oracle.eval()((x, mask))[0]
        oracle.train()
        torch.manual_seed(seed)
        expected = oracle((x, mask))[0]
    # A block already wrong in eval mode fails here too; say so, rather than point at the dropouts.
    eval_right = isinstance(out["eval"], torch.Tensor) and out["eval"].shape == expected_eval.shape and \
        bool(torch.allclose(out["eval"], expected_eval, rtol=1e-4, atol=1e-4))
    expect(eval_right, "the block's output is already wrong in eval mode (the comparison with "
           "nn.TransformerEncoderLayer says how), so its training-mode output cannot match either")
    expect_close(out["out"], expected, "block output in training mode (attn_drop_rate 0.25, layer_drop_rate 0.2, "
                 "same torch seed as the reference): dropout goes on the attention output before it is added to "
                 "the input, and linear_net's Dropout(layer_drop_rate) ends the feed-forward part",
                 rtol=1e-4, atol=1e-5)


# ------------------------------------------------------------------------------------------ MiniBERT

MODEL = ("scaled_dot_product", "MultiHeadAttention", "TransformerBlock")


@question("mini_bert_tests", points=1)
def test_mini_bert_structure_and_shape(student):
    # Structure through the weights path: the grader's state dict for MiniBERT(2, 23, 12, 3) (a 24-row
    # embedding whose last row is [MASK], two blocks, a 23-way head) is loaded strictly, and the logits of
    # tokens that include [MASK] (id 23) must equal the grader's model's. Nothing the kernel says about its
    # own structure is used; a forging kernel earns this point only by reporting a correct model's logits.
    ref = reference()
    g = torch.Generator().manual_seed(808)
    torch.manual_seed(808)
    model = ref.MiniBERT(2, 23, 12, 3, 0.1, 0.1)
    state = grader_weights(model, g)
    tokens = torch.randint(1, 23, (3, 9), generator=g)
    tokens[:, 4] = 23                                         # [MASK]: the embedding's extra row
    code = ("model = MiniBERT(2, 23, 12, 3, 0.1, 0.1)\n" + LOAD.format(name="model") +
            "model.eval()\n"
            "with torch.no_grad():\n"
            "    logits = model(tokens) if loaded else None\n"
            "result = {'loaded': loaded, 'logits': logits}")
    out = student.run(code, stand_ins=MODEL, tokens=tokens, state=state)
    expect(out["loaded"] is True, "the grader could not load its weights into MiniBERT(2, 23, 12, 3, 0.1, 0.1) by "
           "name: it needs embedding = nn.Embedding(vocab_size + 1, embed_dim) (the last id is [MASK]), "
           "blocks = nn.Sequential of n_layers TransformerBlocks and head = nn.Linear(embed_dim, vocab_size)")
    logits = expect_shape(out["logits"], (3, 9, 23), "MiniBERT logits for tokens of shape (3, 9) and vocab 23")
    model.eval()
    with torch.no_grad():
        expected = model(tokens)
    expect_close(logits, expected, "MiniBERT logits for tokens that include [MASK] (id vocab_size), eval mode, "
                 "no padding", atol=1e-4)


@question("mini_bert_tests", points=2)
def test_mini_bert_matches_reference(student):
    g = torch.Generator().manual_seed(909)
    V, E, H, L, B, S = 31, 16, 4, 2, 3, 10
    ref = reference()
    torch.manual_seed(909)
    model = ref.MiniBERT(L, V, E, H, 0.0, 0.0)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn(p.shape, generator=g) * 0.05)
    model.eval()
    state = {k: v.clone() for k, v in model.state_dict().items()}
    tokens = torch.randint(1, V, (B, S), generator=g)
    lengths = torch.tensor([10, 6, 8])
    pad_mask = torch.arange(S)[None, :] >= lengths[:, None]
    tokens = tokens.masked_fill(pad_mask, 0)
    code = ("model = MiniBERT(L, V, E, H, 0.2, 0.2)\n"
            "model.load_state_dict(state)\n"
            "model.eval()\n"
            "with torch.no_grad():\n"
            "    result = model(tokens, pad_mask=pad_mask)\n")
    out = student.run(code, stand_ins=MODEL, L=L, V=V, E=E, H=H, state=state, tokens=tokens, pad_mask=pad_mask)
    with torch.no_grad():
        expected = model(tokens, pad_mask=pad_mask)
    out = expect_shape(out, (B, S, V), "MiniBERT logits")
    real = ~pad_mask
    expect_close(out[real], expected[real], "MiniBERT logits at real (non-pad) positions: embedding, then "
                 "positional encoding, then the blocks with the pad mask, then the head", atol=1e-4)
