"""A hand-made log-sum-exp that subtracts one maximum per row (over the counted positions and the whole vocabulary) rather than each position's own maximum: positions at very different levels underflow to -inf.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-i
"""
import torch

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    x = logits[:, :-1]
    position = torch.arange(1, ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    x = torch.where(counts[..., None], x, torch.zeros_like(x))
    m = x.detach().amax(dim=(1, 2), keepdim=True)
    lse = (x - m).exp().sum(-1).log() + m[..., 0]
    token = x.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1) - lse
    return token.masked_fill(~counts, 0.0).sum(dim=-1)
