"""Writes the log-softmax as the gathered score minus logsumexp, indexes it in the logits' own positions
j (prompt_lengths - 1 <= j < lengths - 1) with a boolean mask, and adds the kept values into their rows with
index_add on a zero vector made in logits' dtype and device.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-h
"""

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    scores = logits[:, :-1]
    picked = scores.gather(-1, ids[:, 1:, None]).squeeze(-1) - scores.logsumexp(dim=-1)
    j = torch.arange(ids.size(1) - 1, device=logits.device)
    keep = (j >= prompt_lengths[:, None] - 1) & (j < lengths[:, None] - 1)
    rows = torch.arange(ids.size(0), device=logits.device)[:, None].expand_as(keep)
    out = torch.zeros(ids.size(0), dtype=logits.dtype, device=logits.device)
    return out.index_add(0, rows[keep], picked[keep])
