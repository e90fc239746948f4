"""positional_encoding_tests: the sinusoidal table, batch-first broadcasting, buffer not parameter."""

import torch

from assignments.grading.testkit import (
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


@question("positional_encoding_tests", points=1)
def test_adds_sinusoid_table_batch_first(student):
    # batch 3, seq 13, d_model 10, max_len 40; random input so the table must be ADDED to x.
    g = torch.Generator().manual_seed(3)
    x = torch.randn(3, 13, 10, generator=g)
    expected = x.double() + _formula(13, 10)  # before the call: the in-process door hands over x itself
    out = student.run(
        "enc = PositionalEncoding(10, dropout=0.0, max_len=40).eval()\n"
        "before = x.clone()\n"
        "y = enc(x)\n"
        "result = {'y': y, 'untouched': bool(torch.equal(x, before))}",
        x=x,
    )
    y = expect_shape(out["y"], (3, 13, 10), "the output for input of shape (batch 3, seq 13, d_model 10)")
    expect_close(y.double(), expected, "input plus positional table", rtol=0, atol=1e-5)
    expect(
        out["untouched"] is True,
        "forward added the table to its input x in place; the caller's embeddings "
        "must not change (return x + pe, a new tensor)",
    )


@question("positional_encoding_tests", points=1)
def test_table_is_a_buffer_and_dropout_applies(student):
    out = student.run(
        "enc = PositionalEncoding(8, dropout=0.5, max_len=30)\n"
        "enc.train()\n"
        "y = enc(torch.zeros(64, 30, 8))\n"
        "result = {'params': sum(p.numel() for p in enc.parameters()),\n"
        "          'buffers': [tuple(b.shape) for b in enc.buffers()],\n"
        "          'zeros': (y == 0).float().mean().item()}"
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
    # Dropout 0.5 on 64*30*8 = 15,360 entries: the zeroed fraction is about 0.5 plus the few table
    # entries that are exactly 0 (sin(0) at position 0: 4 of 240 table entries, 1/60 of the total).
    # sigma = sqrt(0.25 / 15360) = 0.004, so 0.44..0.58 is more than 10 sigma wide.
    expect_between(out["zeros"], 0.44, 0.58, "the fraction of entries zeroed by dropout 0.5 in training mode")
