"""Drops the gathered trailing dimension with .squeeze() instead of .squeeze(-1): right for the visible
shapes (even a single row), but with seq 2 the (batch, 1) scores become (batch,), broadcast against the
(batch, 1) mask to (batch, batch), and every row gets the sum of all rows' counted tokens.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-h
stated: seq may be as short as 2
"""

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
    targets = ids[:, 1:]
    token_log_probs = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze()
    position = torch.arange(1, ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    return token_log_probs.masked_fill(~counts, 0.0).sum(dim=-1)
