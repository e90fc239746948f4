"""Finds the k-th largest score with torch.kthvalue (the (n - k + 1)-th smallest) and the end of the nucleus with
torch.searchsorted on each row's running sum (the first rank whose running sum is >= p), keeping the ranks up to it.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-g
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return torch.argmax(scores, dim=-1)
    scaled = scores / temperature
    ntoken = scaled.shape[-1]
    if top_k is not None:
        kth_best = torch.kthvalue(scaled, ntoken - top_k + 1, dim=-1, keepdim=True).values
        scaled = torch.where(scaled >= kth_best, scaled, torch.full_like(scaled, float("-inf")))
    if top_p is not None:
        if not (top_p > 0 and top_p <= 1):          # NaN fails both comparisons
            raise ValueError(f"top_p={top_p} is outside (0, 1]")
        if top_p != 1:
            probs = torch.softmax(scaled, dim=-1)
            ranked, order = torch.sort(probs, dim=-1, descending=True, stable=True)
            running = ranked.cumsum(dim=-1)
            last = torch.searchsorted(running, torch.full_like(running[:, :1], top_p))   # first rank reaching p
            ranks = torch.arange(ntoken, device=scores.device).expand_as(running)
            keep = torch.zeros_like(ranks, dtype=torch.bool).scatter(-1, order, ranks <= last)
            scaled = scaled.masked_fill(~keep, float("-inf"))
    chosen = torch.multinomial(torch.softmax(scaled, dim=-1), num_samples=1, generator=generator)
    return chosen[:, 0]
