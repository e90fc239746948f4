"""Chooses the top-k ids on the unscaled scores (dividing by a positive temperature keeps their order) as a boolean
scatter of topk's indices, shifts the reached flags one place with F.pad on their int form, and applies every cut
at the end with one torch.where on the scaled scores.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-f
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    keep = torch.ones_like(scores, dtype=torch.bool)
    if top_k is not None:
        keep = torch.zeros_like(keep).scatter(-1, scores.topk(top_k, dim=-1).indices, True)
    cut_value = torch.full_like(scores, float("-inf"))
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            probs = torch.softmax(torch.where(keep, scores / temperature, cut_value), dim=-1)
            ranked, order = probs.sort(dim=-1, descending=True, stable=True)
            reached = (ranked.cumsum(dim=-1) >= top_p).int()
            cut_ranked = F.pad(reached[:, :-1], (1, 0)).bool()                 # reached before this id
            keep = keep & ~torch.zeros_like(keep).scatter(-1, order, cut_ranked)
    logits = torch.where(keep, scores / temperature, cut_value)
    return torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=generator).squeeze(-1)
