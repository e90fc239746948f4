"""Top-k scatters the k best scaled scores (topk's values and indices) into a tensor of -inf; top-p finds, per
row, the rank at which the running sum first reaches p with torch.searchsorted, keeps the ranks up to it
(compared with an arange on the scores' device) and scatters that mask back to id order.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-b
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
    if top_k is not None:
        best = scaled.topk(top_k, dim=-1)
        scaled = torch.full_like(scaled, float("-inf")).scatter(-1, best.indices, best.values)
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = F.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
            running = ranked.cumsum(dim=-1)
            last = torch.searchsorted(running, torch.full_like(running[:, :1], top_p))   # (batch, 1)
            ranks = torch.arange(running.size(-1), device=scores.device).expand_as(running)
            keep = torch.zeros_like(running, dtype=torch.bool).scatter(-1, order, ranks <= last)
            scaled = scaled.masked_fill(~keep, float("-inf"))
    return torch.multinomial(F.softmax(scaled, dim=-1), 1, generator=generator).squeeze(1)
