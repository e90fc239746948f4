"""A correct solution that filters in probability space: top-k cuts scores with torch.where, then top-p zeroes the
probabilities of the ids ranked after the one whose running sum reaches p and renormalises the rest by their sum
before torch.multinomial.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-d
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return torch.argmax(scores, dim=-1)
    scaled = scores / temperature
    if top_k is not None:
        kth = torch.topk(scaled, top_k, dim=-1).values[..., -1:]
        scaled = torch.where(scaled >= kth, scaled, torch.full_like(scaled, float("-inf")))
    probs = torch.softmax(scaled, dim=-1)
    if top_p is not None:
        if not (top_p > 0 and top_p <= 1):
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = torch.sort(probs, dim=-1, descending=True, stable=True)
            running = torch.cumsum(ranked, dim=-1)
            keep_ranked = torch.cat([torch.ones_like(running[..., :1], dtype=torch.bool),
                                     running[..., :-1] < top_p], dim=-1)
            keep = torch.zeros_like(keep_ranked).scatter(-1, order, keep_ranked)
            probs = torch.where(keep, probs, torch.zeros_like(probs))
            probs = probs / probs.sum(dim=-1, keepdim=True)
    return torch.multinomial(probs, num_samples=1, generator=generator).squeeze(-1)
