"""Scores each token as its logit minus the position's logsumexp, gathered at the targets, with the mask built
from the target positions shifted back to logits positions (j counts when prompt - 1 <= j < length - 1).

question: sequence_logprob_tests
replaces: sequence_logprob
"""


def sequence_logprob(logits, ids, prompt_lengths, lengths):
    scores = logits[:, :-1]
    picked = scores.gather(2, ids[:, 1:, None])[..., 0] - scores.logsumexp(dim=2)
    j = torch.arange(ids.size(1) - 1, device=logits.device)
    keep = (j[None] >= prompt_lengths[:, None] - 1) & (j[None] < lengths[:, None] - 1)
    return torch.where(keep, picked, torch.zeros_like(picked)).sum(-1)
