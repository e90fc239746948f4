"""Handles one row at a time in a Python loop (each row filtered on its own, then drawn with its own
torch.multinomial call on the same generator) and stacks the ids; the reference filters and draws the
whole batch at once.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-a
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
    ids = []
    for row in scores:
        logits = row / temperature
        if top_k is not None:
            logits = logits.masked_fill(logits < logits.topk(top_k).values[-1], float("-inf"))
        if top_p is not None and top_p < 1:
            probs = F.softmax(logits, dim=0)
            ranked, order = probs.sort(descending=True, stable=True)
            drop = order[ranked.cumsum(0) - ranked >= top_p]
            logits = logits.index_fill(0, drop, float("-inf"))
        ids.append(torch.multinomial(F.softmax(logits, dim=0), 1, generator=generator))
    return torch.cat(ids)
