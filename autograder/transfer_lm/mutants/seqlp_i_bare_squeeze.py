"""Uses .squeeze() after gather instead of .squeeze(-1): with seq 2 the (batch, 1) token log-probs become (batch,) and broadcast against the (batch, 1) mask into a (batch, batch) table.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-i
"""
import torch

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
    token = log_probs.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze()
    position = torch.arange(1, ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    return torch.where(counts, token, torch.zeros((), dtype=logits.dtype, device=logits.device)).sum(dim=-1)
