"""Decodes one row at a time in a Python loop with 1-D operations (each row is its own text): top-k and
top-p build a boolean keep mask per row, each row is drawn with its own torch.multinomial call on the same
generator, and the (1,)-shaped draws are joined with torch.cat, which keeps them on the scores' device.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-b
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
    draws = []
    for row in scores:
        logits = row / temperature
        if top_k is not None:
            logits = logits.masked_fill(logits < logits.topk(top_k).values[-1], float("-inf"))
        if top_p is not None and top_p < 1:
            ranked, order = torch.softmax(logits, dim=0).sort(descending=True, stable=True)
            running = ranked.cumsum(dim=0)
            keep_ranked = torch.ones_like(running, dtype=torch.bool)
            keep_ranked[1:] = running[:-1] < top_p
            keep = torch.zeros_like(keep_ranked).scatter(0, order, keep_ranked)
            logits = logits.masked_fill(~keep, float("-inf"))
        draws.append(torch.multinomial(torch.softmax(logits, dim=0), 1, generator=generator))
    return torch.cat(draws)
