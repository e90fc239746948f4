"""Shifts the logits forward with torch.roll so that rolled[b, t] = logits[b, t - 1] (position 0 gets the
never-counted last position), takes the log-softmax at every target position and keeps prompt_lengths <= t <
lengths with torch.where over the full sequence.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-h
"""

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    rolled = torch.roll(logits, shifts=1, dims=1)
    token_log_probs = torch.log_softmax(rolled, dim=-1).gather(2, ids.unsqueeze(2)).squeeze(2)
    t = torch.arange(ids.size(1), device=logits.device).expand_as(ids)
    keep = (t >= prompt_lengths.unsqueeze(1)) & (t < lengths.unsqueeze(1))
    return torch.where(keep, token_log_probs, torch.zeros_like(token_log_probs)).sum(1)
