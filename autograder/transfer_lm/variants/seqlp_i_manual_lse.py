"""A hand-made stable log-sum-exp with each position's own (detached) maximum, selecting targets with a one-hot product and masking with torch.where.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-i
"""
import torch

import torch.nn.functional as F


def sequence_logprob(logits, ids, prompt_lengths, lengths):
    x = logits[:, :-1]
    m = x.detach().amax(dim=-1, keepdim=True)
    lse = (x - m).exp().sum(-1).log() + m.squeeze(-1)
    onehot = F.one_hot(ids[:, 1:], x.size(-1)).to(x.dtype)
    token = (x * onehot).sum(-1) - lse
    position = torch.arange(1, ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    return torch.where(counts, token, torch.zeros_like(token)).sum(-1)
