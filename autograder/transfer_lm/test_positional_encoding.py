"""positional_encoding_tests: the sinusoidal table, batch-first broadcasting, buffer not parameter."""

import torch

from assignments.grading.testkit import (
    behaviour,
    expect,
    expect_between,
    expect_close,
    expect_shape,
    kernel_value,
    question,
)


def _formula(seq: int, d: int) -> torch.Tensor:
    pos = torch.arange(seq, dtype=torch.float64)[:, None]
    rate = 10000.0 ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    table = torch.zeros(seq, d, dtype=torch.float64)
    table[:, 0::2], table[:, 1::2] = torch.sin(pos / rate), torch.cos(pos / rate)
    return table


@question("positional_encoding_tests")
@behaviour("PositionalEncoding", "the sinusoid table added to x, batch-first", mutant="pe_sin_cos_swapped")
@behaviour("PositionalEncoding", "input x left unchanged", mutant="pe_added_in_place")
@behaviour(
    "PositionalEncoding",
    "evaluation mode: no dropout at any rate (built with 0.3, then eval)",
    mutant="pe_dropout_in_evaluation_mode",
)
@behaviour(
    "PositionalEncoding",
    "state across calls: a short sequence first, then a longer one; the table the module holds is unchanged",
    mutant="pe_cuts_table_to_first_call",
    kind="state",
)
def test_adds_sinusoid_table_batch_first(student):
    # batch 3, seq 13, d_model 10, max_len 40; random input so the table must be ADDED to x. Dropout 0.3 in
    # evaluation mode: the module is built with a rate and then switched off, as evaluate_lm does it. The
    # module first takes a batch of one sequence of one token, then the longer batch: what it holds (its
    # buffers, under any name and layout) must be the same after both calls as before them.
    g = torch.Generator().manual_seed(3)
    x = torch.randn(3, 13, 10, generator=g)
    expected = x.double() + _formula(13, 10)  # before the call: the in-process door hands over x itself
    out = student.run(
        "enc = PositionalEncoding(10, dropout=0.3, max_len=40).eval()\n"
        "held = {name: b.clone() for name, b in enc.named_buffers()}\n"
        "before = x.clone()\n"
        "first = enc(x[:1, :1])\n"
        "y = enc(x)\n"
        "now = dict(enc.named_buffers())\n"
        "kept = set(now) == set(held) and all(torch.equal(now[name], b) for name, b in held.items())\n"
        "result = {'y': y, 'untouched': bool(torch.equal(x, before)), 'first': first, 'kept': bool(kept)}",
        x=x,
    )
    expect(
        out["kept"] is True,
        "calling PositionalEncoding changed the table it holds (after a sequence of 1 token, then one of 13): "
        "forward must only read the table, as self.pe[:seq], and keep all max_len rows for the next call",
    )
    y = expect_shape(out["y"], (3, 13, 10), "the output for input of shape (batch 3, seq 13, d_model 10)")
    zeroed = int(((y == 0) & (expected != 0)).sum())
    expect(
        zeroed == 0,
        f"in evaluation mode, built with dropout 0.3, {zeroed} of 390 outputs came back 0: dropout applies in "
        "training mode only (nn.Dropout, or F.dropout(..., training=self.training))",
    )
    expect_close(y.double(), expected, "input plus positional table", rtol=0, atol=1e-5)
    first = expect_shape(out["first"], (1, 1, 10), "the output for a batch of one sequence of one token")
    expect_close(first.double(), expected[:1, :1], "input plus positional table at position 0", rtol=0, atol=1e-5)
    expect(
        out["untouched"] is True,
        "forward added the table to its input x in place; the caller's embeddings "
        "must not change (return x + pe, a new tensor)",
    )


@question("positional_encoding_tests")
@behaviour("PositionalEncoding", "the table is a buffer, not a parameter", mutant="pe_table_as_frozen_parameter")
@behaviour("PositionalEncoding", "the table is a buffer, not a plain attribute", mutant="pe_table_plain_attribute")
@behaviour(
    "PositionalEncoding",
    "training mode: dropout on the sum x + pe at the given rate",
    mutant="pe_dropout_before_adding",
)
@behaviour(
    "PositionalEncoding",
    "training mode: `dropout` is the probability of zeroing, not of keeping (rates 0.5 and 0.2)",
    mutant="pe_dropout_keep_probability",
)
@behaviour(
    "PositionalEncoding",
    "randomness: in training mode dropout draws from torch's global generator, on the sum x + pe, at the rate",
    mutant="pe_dropout_before_adding",
    kind="randomness",
)
def test_table_is_a_buffer_and_dropout_applies(student):
    out = student.run(
        "result = {}\n"
        "for rate in (0.5, 0.2):\n"
        "    enc = PositionalEncoding(8, dropout=rate, max_len=30)\n"
        "    enc.train()\n"
        "    y = enc(torch.zeros(64, 30, 8))\n"
        "    result[str(rate)] = (y == 0).float().mean().item()\n"
        "result.update(params=sum(p.numel() for p in enc.parameters()), buffers=[tuple(b.shape) for b in enc.buffers()])"
    )
    expect(
        out["params"] == 0,
        f"PositionalEncoding should have no trainable parameters (register the table as a buffer); "
        f"got {kernel_value(out['params'])}",
    )
    # Either table layout the skeleton allows: (max_len, d_model), or (1, max_len, d_model) to broadcast
    # over the batch as the UvA tutorial stores it.
    shapes = [tuple(shape) for shape in out["buffers"]]
    expect(
        (30, 8) in shapes or (1, 30, 8) in shapes,
        "PositionalEncoding should hold its table as a buffer of shape (max_len, d_model) or (1, max_len, d_model)",
    )
    # Dropout p on 64*30*8 = 15,360 entries zeroes a fraction p of them, plus the surviving table entries that
    # are exactly 0 (sin(0) at position 0: 4 of 240 table entries, 1/60): p + (1 - p) / 60, so 0.508 for 0.5
    # and 0.213 for 0.2. sigma = sqrt(p(1 - p) / 15360) = 0.004 and 0.0032: 0.44..0.58 and 0.17..0.26 are
    # each more than 10 sigma wide. Two rates, so that a rate read as the keep probability (1 - p) shows.
    expect_between(out["0.5"], 0.44, 0.58, "the fraction of entries zeroed by dropout 0.5 in training mode")
    expect_between(
        out["0.2"],
        0.17,
        0.26,
        "the fraction of entries zeroed by dropout 0.2 in training mode (dropout is the probability of "
        "zeroing an entry, not of keeping it)",
    )


@question("positional_encoding_tests")
@behaviour(
    "PositionalEncoding",
    "device: the table moves with the module, so the output is on the input's device (the 'meta' device)",
    mutant="pe_table_plain_attribute",
    kind="device",
)
def test_table_follows_the_module_device(student):
    # PyTorch's 'meta' device stands for a GPU (grading has none): tensors there have shapes but no data, and
    # adding a CPU tensor to one fails as adding it to a CUDA tensor does. A module moved there with .to()
    # takes its buffers along; a table kept as a plain attribute stays on the CPU.
    out = student.run(
        "result = []\n"
        "enc = PositionalEncoding(8, dropout=0.2, max_len=30).to('meta')\n"
        "for mode in ('eval', 'train'):\n"
        "    getattr(enc, mode)()\n"
        "    try:\n"
        "        y = enc(torch.zeros(2, 5, 8, device='meta'))\n"
        "        result.append([str(y.device), list(y.shape)])\n"
        "    except Exception:\n"
        "        result.append(None)\n"
    )
    for mode, got in zip(("evaluation", "training"), out):
        expect(
            got == ["meta", [2, 5, 8]],
            f"PositionalEncoding(8) moved to the 'meta' device (a stand-in for a GPU) with .to(), in {mode} mode, "
            + ("raised an error" if got is None else "returned its output elsewhere or of another shape")
            + " for an input there of shape (2, 5, 8): register the table with self.register_buffer so that "
            "it moves with the module",
        )


# Behaviours of these definitions that no hidden test checks, each with the reason (autograder/README.md,
# Behaviour maps): (definition, behaviour, why it is out of scope).
OUT_OF_SCOPE = [
    (
        "PositionalEncoding",
        "buffer shaped (max_len, d) or (1, max_len, d)",
        "The skeleton allows both; variant pe_uva_tutorial (a (1, max_len, d) non-persistent buffer) keeps full marks.",
    ),
    (
        "PositionalEncoding",
        "validation order",
        "It checks no argument and has no special case (d_model is even by the skeleton's words).",
        "validation-order",
    ),
    (
        "PositionalEncoding",
        "exact boundaries",
        "It compares nothing with a threshold; the longest sequence it must take, seq = max_len (30), runs in test_table_is_a_buffer_and_dropout_applies.",
        "boundary",
    ),
    ("PositionalEncoding", "a sort's ties", "It sorts and ranks nothing.", "ties"),
    (
        "PositionalEncoding",
        "degenerate values",
        "Its one degenerate value, dropout 0, goes unchanged to nn.Dropout, which then keeps everything; a sequence of one token, the shortest, is checked in test_adds_sinusoid_table_batch_first.",
        "degenerate",
    ),
    (
        "PositionalEncoding",
        "hyper-parameters that are not whole numbers",
        "No arithmetic touches its one fractional hyper-parameter: the dropout rate (0.3, 0.5 and 0.2 in the tests) goes unchanged to nn.Dropout, and d_model and max_len are counts.",
        "non-integer",
    ),
    (
        "PositionalEncoding",
        "optimisation steps",
        "It has no parameters and takes no optimisation step.",
        "step-tolerance",
    ),
    (
        "PositionalEncoding",
        "a batch of one",
        "forward broadcasts the table over the batch and reshapes nothing; a batch of one sequence of one token, (1, 1, 10), is checked in test_adds_sinusoid_table_batch_first.",
        "batch-of-one",
    ),
]


# The values these tests call each signature parameter of the graded definitions with (autograder/README.md,
# Contract parameters): (definition, parameter, values, None when they vary, else why one is enough).
CONTRACT_PARAMETERS = [
    ("PositionalEncoding", "d_model", "10, 8", None),
    ("PositionalEncoding", "dropout", "0.3 (evaluation mode), 0.5, 0.2 (training mode), 0.2 on the meta device", None),
    ("PositionalEncoding", "max_len", "40, 30 (equal to the sequence length)", None),
    ("PositionalEncoding", "x", "(3, 13, 10), (1, 1, 10), (64, 30, 8), (2, 5, 8) on the meta device", None),
]
