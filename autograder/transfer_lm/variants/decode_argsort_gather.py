"""Top-k by scattering the k best values into a row of -inf; top-p ranks with a stable argsort of the
negated probabilities, gathers the sorted values, and brings the cut back to id order through the
inverse permutation (argsort of the order) and gather instead of a scatter.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-a
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(-1)
    scaled = scores / temperature
    if top_k is not None:
        best = scaled.topk(top_k, dim=-1).indices
        scaled = torch.full_like(scaled, float("-inf")).scatter(-1, best, scaled.gather(-1, best))
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p={top_p} is outside (0, 1]")
        if top_p < 1:
            probs = F.softmax(scaled, dim=-1)
            order = torch.argsort(-probs, dim=-1, stable=True)
            ranked = probs.gather(-1, order)
            cut_ranked = ranked.cumsum(-1) - ranked >= top_p
            cut = cut_ranked.gather(-1, order.argsort(dim=-1))
            scaled = scaled.masked_fill(cut, float("-inf"))
    return torch.multinomial(F.softmax(scaled, dim=-1), 1, generator=generator).view(-1)
