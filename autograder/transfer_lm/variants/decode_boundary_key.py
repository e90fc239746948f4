"""Probability-space filtering without putting masks back through a permutation: find each row's boundary id
(the one whose running sum first reaches p) and keep, in id order, every id ranked before it, i.e. with a
larger probability, or an equal probability and an id no larger. Top-k from an ascending sort.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-c
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
    ntoken = scaled.shape[-1]
    if top_k is not None:
        kth = scaled.sort(dim=-1).values[:, ntoken - top_k].unsqueeze(-1)
        scaled = torch.where(scaled < kth, float("-inf"), scaled)
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            probabilities = torch.softmax(scaled, dim=-1)
            ranked, order = probabilities.sort(dim=-1, descending=True, stable=True)
            boundary = (ranked.cumsum(dim=-1) < top_p).sum(dim=-1, keepdim=True).clamp(max=ntoken - 1)
            boundary_p, boundary_id = ranked.gather(-1, boundary), order.gather(-1, boundary)
            ids = torch.arange(ntoken, device=scores.device)
            keep = (probabilities > boundary_p) | ((probabilities == boundary_p) & (ids <= boundary_id))
            scaled = torch.where(keep, scaled, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).view(-1)
