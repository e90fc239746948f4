"""Uses the same window for inputs and targets, forgetting to move the targets one token later.

question: lm_batches_tests
replaces: lm_batches
"""


def make_lm_chunks(ids, seq_len):
    """Cut a 1-D LongTensor of token ids into next-token prediction examples.

    Returns (inputs, targets), both LongTensors of shape (nchunks, seq_len) with
    nchunks = (len(ids) - 1) // seq_len. Row k of inputs is ids[k*seq_len : (k+1)*seq_len]; row k of
    targets is the same window moved one token later, so targets[k, t] is the token that follows
    inputs[k, t]. Tokens that do not fill a whole chunk at the end are dropped. Do not modify `ids`.
    Our solution is 4 lines.
    """
    nchunks = (ids.numel() - 1) // seq_len
    inputs = ids[: nchunks * seq_len].view(nchunks, seq_len)          # (nchunks, seq_len)
    targets = ids[: nchunks * seq_len].view(nchunks, seq_len)   # the same windows, one token later
    return inputs, targets
