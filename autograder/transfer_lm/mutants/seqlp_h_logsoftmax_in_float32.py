"""Casts the logits to float32 before the log-softmax "for numerical safety" and casts the sum back to
logits' dtype at the end: the dtype check passes, but float64 logits are only float32-accurate (errors near 1e-7
instead of 1e-15).

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-h
stated: in logits' dtype (float32 or float64)
"""

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    log_probs = torch.log_softmax(logits[:, :-1].float(), dim=-1)
    targets = ids[:, 1:]
    token_log_probs = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    position = torch.arange(1, ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    return token_log_probs.masked_fill(~counts, 0.0).sum(dim=-1).to(logits.dtype)
