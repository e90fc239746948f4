"""Collects the row sums in torch.zeros(batch, device=logits.device), whose dtype is the default float32,
and converts the buffer to logits' dtype only when returning it: the dtype check passes, but float64 sums are
rounded to float32 on the way (errors near 1e-7).

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-h
stated: in logits' dtype (float32 or float64)
"""

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    out = torch.zeros(ids.size(0), device=logits.device)
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)
    token_log_probs = log_probs.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    for b in range(ids.size(0)):
        p, l = int(prompt_lengths[b]), int(lengths[b])
        out[b] = token_log_probs[b, p - 1:l - 1].sum()
    return out.to(logits.dtype)
