"""Caches the mask of counted positions by (shape, device) in a mutable default argument to save work: a later call with the same shape but other prompt_lengths or lengths reuses the stale mask.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-i
"""
import torch

def sequence_logprob(logits, ids, prompt_lengths, lengths, _MASKS={}):
    key = (tuple(ids.shape), str(logits.device))
    if key not in _MASKS:
        position = torch.arange(1, ids.size(1), device=logits.device)
        _MASKS[key] = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    counts = _MASKS[key]
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
    token = log_probs.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    return token.masked_fill(~counts, 0.0).sum(dim=-1)
