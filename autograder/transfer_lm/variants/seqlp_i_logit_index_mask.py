"""Builds the mask over logit positions j (prompt - 1 <= j < length - 1) with cumsum-free comparisons and applies log_softmax to the full logits before shifting, using take_along_dim.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-i
"""
import torch

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    lp = logits.log_softmax(-1)[:, :-1]
    token = torch.take_along_dim(lp, ids[:, 1:, None], dim=-1)[..., 0]
    j = torch.arange(ids.size(1) - 1, device=logits.device)[None, :]
    counts = (j >= (prompt_lengths - 1)[:, None]) & (j < (lengths - 1)[:, None])
    return (token * counts).sum(-1)
