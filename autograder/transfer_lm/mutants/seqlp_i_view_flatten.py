"""Flattens the shifted logits and targets with .view(-1, ntoken) / .view(-1) for a cross_entropy-style gather: non-contiguous logits or ids (a vocabulary slice, a transposed buffer) raise.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-i
"""
import torch

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    batch, seq, ntoken = logits.shape
    flat = torch.log_softmax(logits.view(-1, ntoken), dim=-1).view(batch, seq, ntoken)[:, :-1]
    targets = ids.view(-1).view(batch, seq)[:, 1:]
    token = flat.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    position = torch.arange(1, seq, device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    return token.masked_fill(~counts, 0.0).sum(dim=-1)
