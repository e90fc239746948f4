"""Loops over rows with Python ints and slices logits[b, p-1:l-1] and ids[b, p:l], summing log_softmax gathers; each row's sum is stacked.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-i
"""
import torch

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    out = []
    for b in range(ids.size(0)):
        p, l = int(prompt_lengths[b]), int(lengths[b])
        lp = torch.log_softmax(logits[b, p - 1:l - 1], dim=-1)
        out.append(lp.gather(-1, ids[b, p:l].unsqueeze(-1)).sum())
    return torch.stack(out)
