"""Samples row by row in a Python loop (each row is its own text), drawing one id per row with
torch.multinomial and the generator, and collects the ids with torch.tensor([...]). torch.tensor builds the
result on the CPU, so scores on a GPU come back with ids on the CPU.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-b
stated: make every tensor you create, the returned ids included, on scores.device (a LongTensor on scores.device)
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
    ids = []
    for row in scores:
        scaled = row / temperature
        if top_k is not None:
            kth_best = scaled.topk(top_k).values[-1]
            scaled = scaled.masked_fill(scaled < kth_best, float("-inf"))
        if top_p is not None and top_p < 1:
            ranked, order = torch.softmax(scaled, dim=-1).sort(descending=True, stable=True)
            reached = ranked.cumsum(dim=-1) >= top_p
            cut_ranked = torch.cat([torch.zeros_like(reached[:1]), reached[:-1]])
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
        ids.append(torch.multinomial(torch.softmax(scaled, dim=-1), 1, generator=generator).item())
    return torch.tensor(ids)
