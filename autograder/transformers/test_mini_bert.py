"""Hidden tests: MiniBERT, built from the stand-in blocks, against the reference model."""

import torch

from assignments.grading.testkit import behaviour, expect, expect_close, expect_shape, question
from autograder.transformers.checks import LOAD
from autograder.transformers.inputs import grader_weights
from autograder.transformers.oracles import reference

MODEL = ("scaled_dot_product", "MultiHeadAttention", "TransformerBlock")
NOT_LOADED = (
    "the grader could not load its weights into MiniBERT({args}) by name: it needs embedding = "
    "nn.Embedding(vocab_size + 1, embed_dim) (the last id is [MASK]), blocks = nn.Sequential of n_layers "
    "TransformerBlocks and head = nn.Linear(embed_dim, vocab_size) as parameters (buffers are fine)"
)


@question("mini_bert_tests")
@behaviour(
    "MiniBERT",
    "names and shapes: vocab_size + 1 embedding rows for [MASK]",
    mutant="mini_bert_embedding_without_mask_row",
)
@behaviour(
    "MiniBERT",
    "embeddings enter the positional encoding unscaled (stated in the skeleton)",
    mutant="mini_bert_scales_embeddings",
)
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
    tokens[:, 4] = 23  # [MASK]: the embedding's extra row
    code = (
        "model = MiniBERT(2, 23, 12, 3, 0.1, 0.1)\n" + LOAD.format(name="model") + "model.eval()\n"
        "with torch.no_grad():\n"
        "    logits = model(tokens) if loaded else None\n"
        "result = {'loaded': loaded, 'logits': logits}"
    )
    out = student.run(code, stand_ins=MODEL, tokens=tokens, state=state)
    expect(out["loaded"] is True, NOT_LOADED.format(args="2, 23, 12, 3, 0.1, 0.1"))
    logits = expect_shape(out["logits"], (3, 9, 23), "MiniBERT logits for tokens of shape (3, 9) and vocab 23")
    model.eval()
    with torch.no_grad():
        expected = model(tokens)
    expect_close(
        logits,
        expected,
        "MiniBERT logits for tokens that include [MASK] (id vocab_size), eval mode, no padding",
        atol=1e-4,
    )


@question("mini_bert_tests")
@behaviour("MiniBERT", "positional encoding added", mutant="mini_bert_no_positional_encoding")
@behaviour("MiniBERT", "pad mask passed to every block", mutant="mini_bert_ignores_pad_mask")
@behaviour("MiniBERT", "n_layers blocks, each with its own weights", mutant="mini_bert_one_block_repeated")
def test_mini_bert_matches_reference(student):
    g = torch.Generator().manual_seed(909)
    V, E, H, L, B, S = 31, 16, 4, 3, 3, 10
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
    code = (
        "model = MiniBERT(L, V, E, H, 0.2, 0.2)\n" + LOAD.format(name="model") + "model.eval()\n"
        "with torch.no_grad():\n"
        "    result = {'loaded': loaded, 'logits': model(tokens, pad_mask=pad_mask) if loaded else None}\n"
    )
    out = student.run(code, stand_ins=MODEL, L=L, V=V, E=E, H=H, state=state, tokens=tokens, pad_mask=pad_mask)
    expect(out["loaded"] is True, NOT_LOADED.format(args=f"{L}, {V}, {E}, {H}, 0.2, 0.2"))
    with torch.no_grad():
        expected = model(tokens, pad_mask=pad_mask)
    out = expect_shape(out["logits"], (B, S, V), f"MiniBERT logits ({L} blocks)")
    real = ~pad_mask
    expect_close(
        out[real],
        expected[real],
        f"MiniBERT logits at real (non-pad) positions with {L} blocks, each with its own weights: embedding, "
        "then positional encoding, then the blocks with the pad mask, then the head",
        atol=1e-4,
    )


@question("mini_bert_tests")
@behaviour(
    "MiniBERT",
    "train mode: the positional encoding's dropout at layer_drop_rate",
    mutant="mini_bert_positional_encoding_default_dropout",
)
@behaviour(
    "MiniBERT",
    "train mode: each block gets attn_drop_rate and layer_drop_rate in the skeleton's order",
    mutant="mini_bert_block_rates_swapped",
)
@behaviour(
    "MiniBERT",
    "randomness in every branch: the positional encoding's dropout draws at layer_drop_rate in training mode",
    mutant="mini_bert_positional_encoding_default_dropout",
    kind="randomness",
)
def test_dropout_rates_reach_positional_encoding_and_blocks(student):
    # In training mode, with each rate at an end of its range (0 keeps everything, 1 drops everything), the
    # model is deterministic whatever order its dropouts draw in, so it must equal the grader's reference.
    # layer_drop_rate 1 zeroes the positional encoding's output (the blocks then see zeros): an encoding
    # built with its default dropout 0.1, or with attn_drop_rate, lets the embeddings through. The
    # rates given to the blocks in the wrong order change both settings. The batches are the edges: one
    # sentence of 7 tokens, and sentences of one token.
    ref = reference()
    g = torch.Generator().manual_seed(919)
    V, E, H, L = 19, 12, 2, 1
    torch.manual_seed(919)
    state = grader_weights(ref.MiniBERT(L, V, E, H, 0.0, 0.0), g)
    cases = [
        ((0.0, 1.0), torch.randint(1, V + 1, (1, 7), generator=g)),
        ((1.0, 0.0), torch.randint(1, V, (4, 1), generator=g)),
    ]
    code = (
        "result = []\n"
        "for (attn_rate, layer_rate), tokens in cases:\n"
        "    model = MiniBERT(L, V, E, H, attn_rate, layer_rate)\n"
        + "".join("    " + line + "\n" for line in LOAD.format(name="model").splitlines())
        + "    model.train()\n"
        "    with torch.no_grad():\n"
        "        result.append({'loaded': loaded, 'logits': model(tokens) if loaded else None})\n"
    )
    outs = student.run(code, stand_ins=MODEL, L=L, V=V, E=E, H=H, state=state, cases=cases)
    for ((attn_rate, layer_rate), tokens), out in zip(cases, outs):
        expect(out["loaded"] is True, NOT_LOADED.format(args=f"{L}, {V}, {E}, {H}, {attn_rate:g}, {layer_rate:g}"))
        model = ref.MiniBERT(L, V, E, H, attn_rate, layer_rate)
        model.load_state_dict(state)
        model.train()
        with torch.no_grad():
            expected = model(tokens)
        expect_close(
            out["logits"],
            expected,
            f"MiniBERT logits in training mode for tokens of shape {tuple(tokens.shape)} with attn_drop_rate "
            f"{attn_rate:g} and layer_drop_rate {layer_rate:g} (a rate of 1 drops everything): "
            "pos_encoding = PositionalEncoding(embed_dim, layer_drop_rate), and each block gets "
            "(embed_dim, n_heads, attn_drop_rate, layer_drop_rate)",
            atol=1e-4,
        )


@question("mini_bert_tests", points=0.5)
@behaviour(
    "MiniBERT",
    "device: the logits (and every tensor it makes, a default mask say) follow the tokens' device",
    mutant="mini_bert_default_mask_on_cpu",
    kind="device",
)
def test_follows_the_tokens_device(student):
    # PyTorch's 'meta' device stands for an accelerator (grading hides GPUs): tensors there have shapes but no
    # data, and mixing them with CPU tensors fails as mixing CUDA and CPU tensors does. The reference model runs
    # there whole (embedding, positional encoding, the stand-in blocks, head); a model moved there with .to()
    # fails only where its forward makes a tensor on the CPU, such as a mask of its own when pad_mask is None.
    g = torch.Generator().manual_seed(929)
    tokens = torch.randint(1, 13, (2, 5), generator=g)
    pad_mask = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])
    code = (
        "result = []\n"
        "model = MiniBERT(2, 13, 8, 2, 0.1, 0.1).to('meta')\n"
        "for mode in ('eval', 'train'):\n"
        "    getattr(model, mode)()\n"
        "    for mask in (None, pad_mask):\n"
        "        try:\n"
        "            with torch.no_grad():\n"
        "                logits = model(tokens.to('meta'), None if mask is None else mask.to('meta'))\n"
        "            result.append([str(logits.device), list(logits.shape)])\n"
        "        except Exception:\n"
        "            result.append(None)\n"
    )
    outs = student.run(code, stand_ins=MODEL, tokens=tokens, pad_mask=pad_mask)
    calls = [(mode, mask) for mode in ("eval", "train") for mask in ("pad_mask=None", "a padding mask")]
    for (mode, mask), out in zip(calls, outs):
        expect(
            out == ["meta", [2, 5, 13]],
            f"MiniBERT(2, 13, 8, 2, 0.1, 0.1) moved to the 'meta' device (a stand-in for a GPU), in {mode} mode, "
            f"with tokens there and {mask}, "
            + ("raised an error" if out is None else "returned logits elsewhere or of another shape than (2, 5, 13)")
            + ": every tensor forward makes must be made on the tokens' device (device=tokens.device); "
            "pad_mask=None can go to the blocks as it is",
        )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "MiniBERT",
        "the head applied through its weights (F.linear, weight tying)",
        "Any use of self.head is allowed, and the visible check no longer swaps the head out; variant mini_bert_functional_head keeps full marks.",
    ),
    (
        "MiniBERT",
        "validation order",
        "It checks no argument and has no special case of its own: pad_mask, None or not, passes through to the blocks.",
        "validation-order",
    ),
    ("MiniBERT", "exact boundaries", "It compares nothing with a threshold.", "boundary"),
    ("MiniBERT", "a sort's ties", "MiniBERT sorts and ranks nothing.", "ties"),
    (
        "MiniBERT",
        "degenerate values",
        "It has no branch on a value: the rates go to the provided PositionalEncoding and the blocks, and the training-mode test already runs them at the ends 0 and 1, on sentences of one token.",
        "degenerate",
    ),
    (
        "MiniBERT",
        "state across calls",
        "Its mode is its only state (eval and training outputs are both checked); forward keeps nothing from one call to the next.",
        "state",
    ),
    (
        "MiniBERT",
        "hyper-parameters that are not whole numbers",
        "No arithmetic touches a hyper-parameter: the rates go unchanged to PositionalEncoding and the blocks, and vocab_size + 1 is a whole number.",
        "non-integer",
    ),
    (
        "MiniBERT",
        "optimisation steps",
        "It takes no optimisation step; mlm_step's tests step the stand-in model.",
        "step-tolerance",
    ),
    (
        "MiniBERT",
        "a batch of one",
        "forward reshapes nothing, and a batch of one sentence, tokens (1, 7), runs in test_dropout_rates_reach_positional_encoding_and_blocks.",
        "batch-of-one",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("MiniBERT", "n_layers", "1, 2, 3", None),
    ("MiniBERT", "vocab_size", "13, 19, 23, 31", None),
    ("MiniBERT", "embed_dim", "8, 12, 16", None),
    ("MiniBERT", "n_heads", "2, 3, 4", None),
    ("MiniBERT", "attn_drop_rate", "0.0, 0.1, 0.2, 1.0", None),
    ("MiniBERT", "layer_drop_rate", "0.0, 0.1, 0.2, 1.0", None),
    (
        "MiniBERT.forward",
        "tokens",
        "(batch, seq) (1, 7), (3, 9), (3, 10), (4, 1), (2, 5) on the meta device, with [MASK] (id vocab_size) among them",
        None,
    ),
    ("MiniBERT.forward", "pad_mask", "None, a padding mask", None),
]
