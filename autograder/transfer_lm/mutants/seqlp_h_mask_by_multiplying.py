"""Zeroes the positions that do not count by multiplying with the float mask instead of filling them:
for ordinary logits it is the same, but where a non-counting position's log-softmax is -inf (finite but huge
logits, e.g. 1e38 next to -3e38 in float32), -inf * 0 gives nan and the whole row becomes nan.

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
