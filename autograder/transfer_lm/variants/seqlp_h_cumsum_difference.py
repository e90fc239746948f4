"""Builds the masked per-token log-probabilities, then takes a running sum along the sequence with a leading
zero and reads each row's total as cumsum[lengths - 1] - cumsum[prompt_lengths - 1] (the counted targets are
exactly positions prompt_lengths .. lengths - 1); the masking first keeps far-off, non-counting logits out of
the arithmetic.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-h
"""

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
    token_log_probs = log_probs.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    position = torch.arange(1, ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    token_log_probs = torch.where(counts, token_log_probs, torch.zeros_like(token_log_probs))
    running = F.pad(token_log_probs.cumsum(dim=-1), (1, 0))
    return running.gather(1, (lengths - 1)[:, None]).squeeze(1) - running.gather(1, (prompt_lengths - 1)[:, None]).squeeze(1)
