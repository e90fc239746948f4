"""Ranks with a stable ascending argsort of -probabilities, keeps an id when the mass ranked before it (running sum
minus its own probability) is still below p, and maps the ranked decisions back to id order by gathering with the
inverse permutation (argsort of the order) instead of scattering.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-f
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=1)
    logits = scores.div(temperature)
    if top_k is not None:
        kth = logits.topk(top_k, dim=-1, sorted=True).values[..., -1:]
        logits = logits.masked_fill(logits < kth, -math.inf)
    if top_p is not None:
        if math.isnan(top_p) or top_p <= 0 or top_p > 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            probs = logits.softmax(dim=-1)
            order = torch.argsort(-probs, dim=-1, stable=True)                 # decreasing, smaller id first
            ranked = probs.gather(-1, order)
            before = ranked.cumsum(dim=-1) - ranked                            # mass ranked before each id
            keep = (before < top_p).gather(-1, order.argsort(dim=-1))          # back to id order
            logits = logits.masked_fill(~keep, -math.inf)
    return torch.multinomial(logits.softmax(dim=-1), 1, generator=generator).view(-1)
