"""Returns a fresh torch.zeros when every continuation is empty, as a shortcut: the result has no graph, so DPO's backward fails.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-i
"""
import torch

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    if bool((lengths == prompt_lengths).all()):
        return torch.zeros(ids.size(0), dtype=logits.dtype, device=logits.device)
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
    token = log_probs.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    position = torch.arange(1, ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    return token.masked_fill(~counts, 0.0).sum(dim=-1)
