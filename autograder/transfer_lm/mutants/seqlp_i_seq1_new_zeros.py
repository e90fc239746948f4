"""Guards the seq 1 case (no position to score) with an early `return logits.new_zeros(batch)`: the values are right but the result has no graph, so DPO's backward raises where the docstring asks for a zero gradient.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-i
"""
import torch

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    if ids.size(1) < 2:
        return logits.new_zeros(ids.size(0))
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
    token = log_probs.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    position = torch.arange(1, ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    return token.masked_fill(~counts, 0.0).sum(dim=-1)
