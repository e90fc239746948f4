"""Hidden tests: the post-LayerNorm transformer block and MiniBERT.

Oracle for the block: ``nn.TransformerEncoderLayer(E, H, 4E, dropout=0, activation="gelu",
batch_first=True)`` (post-LayerNorm, the default norm_first=False) with weights copied into the
student's names. The oracle runs in training mode so PyTorch's inference fast path is never taken
(with dropout=0 training mode computes the same function).
"""

import torch
import torch.nn as nn

from assignments.grading.checks import expect, expect_close, expect_shape, kernel_value, question
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


@question("transformer_block_tests", points=1)
def test_block_structure(student):
    code = ("block = TransformerBlock(12, 3, 0.1, 0.2)\n"
            "net = block.linear_net\n"
            "result = {'kinds': [type(m).__name__ for m in net],\n"
            "          'shapes': [list(net[0].weight.shape), list(net[2].weight.shape)],\n"
            "          'p': float(net[3].p),\n"
            "          'norms': [type(block.norm1).__name__, type(block.norm2).__name__],\n"
            "          'attn': type(block.self_attn).__name__}")
    out = student.run(code, stand_ins=ATTENTION)
    expect(out["kinds"] == ["Linear", "GELU", "Linear", "Dropout"],
           f"linear_net should be Sequential(Linear, GELU, Linear, Dropout); "
           f"got {kernel_value(out['kinds'])}")
    expect(out["shapes"] == [[48, 12], [12, 48]],
           f"linear_net should map E -> 4E -> E (weights (4E, E) and (E, 4E)); "
           f"got {kernel_value(out['shapes'])}")
    expect(abs(out["p"] - 0.2) < 1e-9,
           f"linear_net's Dropout should use layer_drop_rate (0.2); got {kernel_value(out['p'])}")
    expect(out["norms"] == ["LayerNorm", "LayerNorm"],
           f"norm1 and norm2 should be nn.LayerNorm; got {kernel_value(out['norms'])}")
    expect(out["attn"] == "MultiHeadAttention",
           f"self_attn should be your MultiHeadAttention; got {kernel_value(out['attn'])}")


# ------------------------------------------------------------------------------------------ MiniBERT

MODEL = ("scaled_dot_product", "MultiHeadAttention", "TransformerBlock")


@question("mini_bert_tests", points=1)
def test_mini_bert_structure_and_shape(student):
    g = torch.Generator().manual_seed(808)
    tokens = torch.randint(1, 23, (3, 9), generator=g)
    code = ("model = MiniBERT(2, 23, 12, 3, 0.1, 0.1)\n"
            "model.eval()\n"
            "with torch.no_grad():\n"
            "    logits = model(tokens)\n"
            "result = {'logits': logits, 'rows': model.embedding.num_embeddings,\n"
            "          'blocks': len(model.blocks), 'head': list(model.head.weight.shape)}")
    out = student.run(code, stand_ins=MODEL, tokens=tokens)
    expect(out["rows"] == 24, f"the embedding needs vocab_size + 1 rows (the last id is [MASK]): "
                              f"expected 24, got {kernel_value(out['rows'])}")
    expect(out["blocks"] == 2,
           f"model.blocks should hold n_layers (2) blocks; got {kernel_value(out['blocks'])}")
    expect(out["head"] == [23, 12],
           f"the head should be nn.Linear(embed_dim, vocab_size); got weight {kernel_value(out['head'])}")
    logits = expect_shape(out["logits"], (3, 9, 23), "MiniBERT logits for tokens of shape (3, 9) and vocab 23")
    expect(bool(torch.isfinite(logits).all()), "MiniBERT logits contain NaN or inf")


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
