"""Casts the logits to float32 for the log-softmax (to save memory) and casts the sum back to logits' dtype: float64 inputs lose their precision.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-i
"""
import torch

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    log_probs = torch.log_softmax(logits[:, :-1].float(), dim=-1)
    token = log_probs.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    position = torch.arange(1, ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    return token.masked_fill(~counts, 0.0).sum(dim=-1).to(logits.dtype)
