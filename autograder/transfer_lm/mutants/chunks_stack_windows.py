"""Builds the windows as a Python list and stacks them (torch.stack of ids[k*seq_len : (k+1)*seq_len]
for each k): the same tensors whenever there is a window, but ids too short for one whole window
(nchunks = 0) make torch.stack raise on an empty list instead of returning (0, seq_len) tensors.

question: lm_batches_tests
replaces: lm_batches
"""


def make_lm_chunks(ids, seq_len):
    nchunks = (len(ids) - 1) // seq_len
    inputs = torch.stack([ids[k * seq_len : (k + 1) * seq_len] for k in range(nchunks)])
    targets = torch.stack([ids[k * seq_len + 1 : (k + 1) * seq_len + 1] for k in range(nchunks)])
    return inputs, targets
