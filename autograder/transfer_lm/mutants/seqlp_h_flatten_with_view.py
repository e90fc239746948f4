"""Flattens the logits with .view(-1, ntoken) and the ids with .view(-1) to take one log-softmax and one
gather over batch * seq rows: fine for a freshly computed model output, but a non-contiguous logits tensor of the
right shape (a slice of a wider vocabulary, a transposed buffer) raises instead of giving the sums.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-h
stated: logits and ids need not be contiguous (a slice of a wider vocabulary, a transposed buffer)
"""

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    batch, seq, ntoken = logits.shape
    log_probs = torch.log_softmax(logits.view(-1, ntoken), dim=-1).view(batch, seq, ntoken)
    token_log_probs = log_probs[:, :-1].gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    position = torch.arange(1, seq, device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    return token_log_probs.masked_fill(~counts, 0.0).sum(dim=-1)
