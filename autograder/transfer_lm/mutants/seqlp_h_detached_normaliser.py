"""Computes log_softmax by hand as logits minus their logsumexp and detaches the logsumexp, treating the
normaliser as a constant: the values are exact and the result still has a graph, but the gradient is the one-hot
of the target alone, without the - softmax part, so DPO's gradient is wrong.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-h
stated: Only logits[b, j] with prompt_lengths[b] - 1 <= j < lengths[b] - 1 count ... Keep the graph
"""

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    scores = logits[:, :-1]
    log_probs = scores - scores.logsumexp(dim=-1, keepdim=True).detach()
    token_log_probs = log_probs.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    position = torch.arange(1, ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    return token_log_probs.masked_fill(~counts, 0.0).sum(dim=-1)
