"""Builds the top-k scores by scattering topk's values into a row of -inf, ranks by sorting -probs ascending
(stable), shifts the "reached p" mask right HF-style (clone, then first rank never removed) and maps it back to id
order with gather through the inverse permutation argsort(order).

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-g
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.max(dim=-1).indices
    scaled = scores / temperature
    if top_k is not None:
        best = scaled.topk(top_k, dim=-1)
        scaled = torch.full_like(scaled, float("-inf")).scatter(-1, best.indices, best.values)
    if top_p is not None:
        if math.isnan(top_p) or top_p <= 0 or top_p > 1:
            raise ValueError(f"top_p must satisfy 0 < top_p <= 1, got {top_p}")
        if top_p < 1:
            negated, order = (-torch.softmax(scaled, dim=-1)).sort(dim=-1, stable=True)
            remove = (-negated).cumsum(dim=-1) >= top_p
            remove[:, 1:] = remove[:, :-1].clone()      # an id goes once the ids before it reached p
            remove[:, 0] = False
            remove = remove.gather(-1, order.argsort(dim=-1))
            scaled = scaled.masked_fill(remove, float("-inf"))
    probabilities = F.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).view(-1)
