"""A correct solution that builds the top-k scores by scattering torch.topk's values into a row of -inf, and ranks
ids for top-p by an ascending stable sort of the negated probabilities; an id is kept when the running sum of the ids
ranked before it is still below p.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-d
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=1)
    scaled = scores / temperature
    if top_k is not None:
        best, best_ids = scaled.topk(top_k, dim=-1)
        scaled = torch.full_like(scaled, float("-inf")).scatter(-1, best_ids, best)
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            probs = torch.softmax(scaled, dim=-1)
            neg_ranked, order = (-probs).sort(dim=-1, stable=True)
            running = (-neg_ranked).cumsum(dim=-1)
            before = torch.cat([torch.zeros_like(running[:, :1]), running[:, :-1]], dim=-1)
            keep = torch.empty_like(order, dtype=torch.bool).scatter_(-1, order, before < top_p)
            scaled = torch.where(keep, scaled, torch.full_like(scaled, float("-inf")))
    return torch.multinomial(torch.softmax(scaled, dim=-1), 1, generator=generator).squeeze(1)
