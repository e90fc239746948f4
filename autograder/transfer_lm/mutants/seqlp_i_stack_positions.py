"""Loops over the positions 1 .. seq - 1 and torch.stack-s the per-position terms: with seq 1 the list is empty and torch.stack raises.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-i
"""
import torch

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    terms = []
    for t in range(1, ids.size(1)):
        lp = torch.log_softmax(logits[:, t - 1], dim=-1).gather(-1, ids[:, t:t + 1]).squeeze(-1)
        keep = (prompt_lengths <= t) & (t < lengths)
        terms.append(lp.masked_fill(~keep, 0.0))
    return torch.stack(terms, dim=1).sum(dim=1)
