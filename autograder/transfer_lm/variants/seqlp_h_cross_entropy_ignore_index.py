"""Uses F.cross_entropy with reduction="none" on the shifted scores, (batch, ntoken, seq - 1), with the
targets that do not count replaced by the ignore_index -100 (never a vocabulary id, so the pad id 0 still
counts), and negates the per-row sum.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-h
"""

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    position = torch.arange(1, ids.size(1), device=logits.device)
    counts = (position >= prompt_lengths[:, None]) & (position < lengths[:, None])
    targets = ids[:, 1:].masked_fill(~counts, -100)
    nll = F.cross_entropy(logits[:, :-1].transpose(1, 2), targets, reduction="none")
    return -nll.sum(dim=-1)
