"""Takes torch.softmax and then .log() instead of torch.log_softmax, masking with torch.where afterwards: with scores in the hundreds the softmax of a target underflows to 0 and its log to -inf.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-i
"""
import torch

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    probs = torch.softmax(logits[:, :-1], dim=-1)
    token = probs.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    position = torch.arange(1, ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    token = torch.where(counts, token, torch.ones_like(token))
    return token.log().sum(dim=-1)
