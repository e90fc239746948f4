"""Takes torch.softmax, gathers the target's probability and then its log (putting 1 where a position does
not count, so the log is 0 there) instead of log_softmax: the probability of an unlikely target underflows to 0
for large logits and the row's sum becomes -inf where log_softmax stays finite.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-h
stated: stable for any scores a model gives: with scores in the hundreds or thousands ... the sums stay finite and exact
"""

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    probs = torch.softmax(logits[:, :-1], dim=-1)
    targets = ids[:, 1:]
    token_probs = probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    position = torch.arange(1, ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    token_probs = torch.where(counts, token_probs, torch.ones_like(token_probs))
    return token_probs.log().sum(dim=-1)
