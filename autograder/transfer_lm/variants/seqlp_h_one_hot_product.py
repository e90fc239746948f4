"""Picks each target's log-probability by multiplying the log-softmax with F.one_hot(target, ntoken) and
summing over the vocabulary instead of gathering.

Judged acceptable when the round landed (written as a mistake): it differs from the reference only where another
word's log-probability is -inf, which takes finite scores near float32's limit (1e38 against -3e38), and
-inf * 0 gives nan. The skeleton now says the scores are finite and far from float32's limit of 3e38, and the
older variant seqlp_one_hot picks the same way.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-h
"""

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
    one_hot = F.one_hot(ids[:, 1:], logits.size(-1)).to(log_probs.dtype)
    token_log_probs = (log_probs * one_hot).sum(dim=-1)
    position = torch.arange(1, ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    return token_log_probs.masked_fill(~counts, 0.0).sum(dim=-1)
