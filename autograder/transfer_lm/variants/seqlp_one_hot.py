"""Picks each target's log-probability with a one-hot product instead of gather, and masks by multiplying with a
0/1 float mask instead of masked_fill.

question: sequence_logprob_tests
replaces: sequence_logprob
"""


def sequence_logprob(logits, ids, prompt_lengths, lengths):
    log_probs = F.log_softmax(logits[:, :-1], dim=-1)
    picked = (log_probs * F.one_hot(ids[:, 1:], logits.size(-1)).to(log_probs.dtype)).sum(dim=-1)
    t = torch.arange(1, ids.size(1), device=logits.device).unsqueeze(0)
    keep = ((t >= prompt_lengths.unsqueeze(1)) & (t < lengths.unsqueeze(1))).to(picked.dtype)
    return (picked * keep).sum(dim=1)
