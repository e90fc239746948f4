"""Loops over the rows and slices each one's continuation, summing the log-softmax values it picks.

question: sequence_logprob_tests
replaces: sequence_logprob
"""


def sequence_logprob(logits, ids, prompt_lengths, lengths):
    log_probs = torch.log_softmax(logits, dim=-1)
    sums = []
    for b in range(ids.size(0)):
        start, end = int(prompt_lengths[b]), int(lengths[b])
        rows = log_probs[b, start - 1 : end - 1]  # the positions that score tokens start .. end - 1
        sums.append(rows.gather(-1, ids[b, start:end].unsqueeze(-1)).sum())
    return torch.stack(sums)
