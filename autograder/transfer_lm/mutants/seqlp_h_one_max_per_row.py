"""Stabilises a hand-written log-softmax by subtracting one maximum per row (over every counted position
and word) instead of one per position: exact in exact arithmetic, but when one counted position's scores lie far
below another's (say -200 against +10 in float32) its exp underflows to 0 and its log-probability becomes -inf.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-h
stated: with scores in the hundreds or thousands, each position at its own level, the sums stay finite and exact
"""

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    sums = []
    for b in range(ids.size(0)):
        p, l = int(prompt_lengths[b]), int(lengths[b])
        x = logits[b, p - 1:l - 1]
        if x.numel():
            x = x - x.max().detach()
        log_probs = x - x.exp().sum(dim=-1, keepdim=True).log()
        sums.append(log_probs.gather(-1, ids[b, p:l].unsqueeze(-1)).sum())
    return torch.stack(sums)
