"""Loops over the rows with Python ints: slices logits[b, p - 1:l - 1] and ids[b, p:l], takes the
log-softmax of the slice, gathers and sums, and stacks the row sums (an empty slice sums to a 0 of the right
dtype on the right device).

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-h
"""

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    rows = []
    for b in range(ids.size(0)):
        p, l = int(prompt_lengths[b]), int(lengths[b])
        log_probs = torch.log_softmax(logits[b, p - 1:l - 1], dim=-1)
        rows.append(log_probs.gather(1, ids[b, p:l, None]).sum())
    return torch.stack(rows)
