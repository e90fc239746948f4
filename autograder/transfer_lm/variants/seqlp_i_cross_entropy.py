"""Uses -F.cross_entropy(reduction='none') on reshaped logits and targets, zeroing non-counted targets with torch.where and the loss with a float mask multiply.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-i
"""
import torch

import torch.nn.functional as F


def sequence_logprob(logits, ids, prompt_lengths, lengths):
    batch, seq, ntoken = logits.shape
    position = torch.arange(1, seq, device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    targets = torch.where(counts, ids[:, 1:], torch.zeros_like(ids[:, 1:]))
    scores = torch.where(counts[..., None], logits[:, :-1], torch.zeros_like(logits[:, :-1]))
    nll = F.cross_entropy(scores.reshape(-1, ntoken), targets.reshape(-1), reduction="none").reshape(batch, seq - 1)
    return -(nll * counts.to(logits.dtype)).sum(dim=-1)
