"""Scores each continuation token with the logits at its own position, forgetting that the scores at position
t are for the token at t + 1.

question: sequence_logprob_tests
replaces: sequence_logprob
"""


def sequence_logprob(logits, ids, prompt_lengths, lengths):
    log_probs = torch.log_softmax(logits, dim=-1)
    token_log_probs = log_probs.gather(-1, ids.unsqueeze(-1)).squeeze(-1)
    position = torch.arange(ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    return token_log_probs.masked_fill(~counts, 0.0).sum(dim=-1)
