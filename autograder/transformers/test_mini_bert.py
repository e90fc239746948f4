"""Hidden tests: MiniBERT, built from the stand-in blocks, against the reference model."""

import torch

from assignments.grading.testkit import expect, expect_close, expect_shape, question
from autograder.transformers.checks import LOAD
from autograder.transformers.inputs import grader_weights
from autograder.transformers.oracles import reference

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
    tokens[:, 4] = 23  # [MASK]: the embedding's extra row
    code = (
        "model = MiniBERT(2, 23, 12, 3, 0.1, 0.1)\n" + LOAD.format(name="model") + "model.eval()\n"
        "with torch.no_grad():\n"
        "    logits = model(tokens) if loaded else None\n"
        "result = {'loaded': loaded, 'logits': logits}"
    )
    out = student.run(code, stand_ins=MODEL, tokens=tokens, state=state)
    expect(
        out["loaded"] is True,
        "the grader could not load its weights into MiniBERT(2, 23, 12, 3, 0.1, 0.1) by "
        "name: it needs embedding = nn.Embedding(vocab_size + 1, embed_dim) (the last id is [MASK]), "
        "blocks = nn.Sequential of n_layers TransformerBlocks and head = nn.Linear(embed_dim, vocab_size)",
    )
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
    code = (
        "model = MiniBERT(L, V, E, H, 0.2, 0.2)\n"
        "model.load_state_dict(state)\n"
        "model.eval()\n"
        "with torch.no_grad():\n"
        "    result = model(tokens, pad_mask=pad_mask)\n"
    )
    out = student.run(code, stand_ins=MODEL, L=L, V=V, E=E, H=H, state=state, tokens=tokens, pad_mask=pad_mask)
    with torch.no_grad():
        expected = model(tokens, pad_mask=pad_mask)
    out = expect_shape(out, (B, S, V), "MiniBERT logits")
    real = ~pad_mask
    expect_close(
        out[real],
        expected[real],
        "MiniBERT logits at real (non-pad) positions: embedding, then "
        "positional encoding, then the blocks with the pad mask, then the head",
        atol=1e-4,
    )
