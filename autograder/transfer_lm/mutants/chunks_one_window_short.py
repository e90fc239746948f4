"""Leaves room for the shifted targets by dropping a whole window (len(ids) // seq_len - 1 windows)
instead of one token, so an exact fit loses its last window and a single window vanishes.

question: lm_batches_tests
replaces: lm_batches
"""


def make_lm_chunks(ids, seq_len):
    nchunks = ids.numel() // seq_len - 1
    inputs = ids[: nchunks * seq_len].view(nchunks, seq_len)
    targets = ids[1 : nchunks * seq_len + 1].view(nchunks, seq_len)
    return inputs, targets
