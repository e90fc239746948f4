"""Caches the counting mask on the function, keyed by (batch, seq, device), to save rebuilding it for every
DPO step: the second call with the same shape but other prompt_lengths or lengths reuses the first call's mask
and sums the wrong positions (state leaking between calls).

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-h
stated: keep nothing from one call to the next (each result depends on that call's arguments alone)
"""

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    cache = sequence_logprob.__dict__.setdefault("masks", {})
    key = (ids.size(0), ids.size(1), str(logits.device))
    if key not in cache:
        position = torch.arange(1, ids.size(1), device=logits.device)
        cache[key] = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    counts = cache[key]
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
    token_log_probs = log_probs.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    return token_log_probs.masked_fill(~counts, 0.0).sum(dim=-1)
