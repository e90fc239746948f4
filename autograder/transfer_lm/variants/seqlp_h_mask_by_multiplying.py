"""Zeroes the positions that do not count by multiplying with the float mask instead of filling them.

Judged acceptable when the round landed (written as a mistake): it differs from the reference only where a
log-softmax is -inf, which takes finite scores near float32's limit (1e38 next to -3e38), and -inf * 0 gives nan.
The skeleton now says the scores are finite and far from float32's limit of 3e38, and the older variant
seqlp_one_hot masks the same way.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-h
"""

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
    targets = ids[:, 1:]
    token_log_probs = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    position = torch.arange(1, ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    return (token_log_probs * counts.to(token_log_probs.dtype)).sum(dim=-1)
