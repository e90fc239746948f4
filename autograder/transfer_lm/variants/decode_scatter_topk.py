"""Top-k by scattering the k best values into a row of -inf (exactly k ids kept, which the specification
allows at ties); top-p by a stable ascending sort of the negated probabilities and a count of the ranks whose
running sum is still below p (plus the one that reaches it), scattered back to id order.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-c
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(-1)
    scaled = scores / temperature
    if top_k is not None:
        best = scaled.topk(top_k, dim=-1)
        scaled = torch.full_like(scaled, float("-inf")).scatter(-1, best.indices, best.values)
    if top_p is not None:
        if not (0 < top_p <= 1):
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            negated, order = (-torch.softmax(scaled, dim=-1)).sort(dim=-1, stable=True)
            running = (-negated).cumsum(dim=-1)
            count = (running < top_p).sum(dim=-1, keepdim=True) + 1           # ranks kept
            ranks = torch.ones_like(order).cumsum(dim=-1) - 1                  # 0, 1, 2, ... on scores.device
            keep = torch.zeros_like(running, dtype=torch.bool).scatter(-1, order, ranks < count)
            scaled = scaled.masked_fill(~keep, float("-inf"))
    return torch.multinomial(scaled.softmax(dim=-1), 1, generator=generator).squeeze(-1)
