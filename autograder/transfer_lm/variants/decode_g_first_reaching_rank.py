"""Keeps the top-k ids with a boolean mask scattered from topk's indices, and finds each row's first rank whose
running sum reaches p with argmax over the boolean "reached" mask (falling back to the last rank where rounding
leaves the sum just short of p), keeping the ranks up to it.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-g
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
    scaled = scores / temperature
    ntoken = scaled.shape[-1]
    if top_k is not None:
        kept = torch.zeros_like(scaled, dtype=torch.bool).scatter(-1, scaled.topk(top_k, dim=-1).indices, True)
        scaled = scaled.masked_fill(~kept, float("-inf"))
    if top_p is not None and top_p < 1:
        ranked, order = torch.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
        reached = ranked.cumsum(dim=-1) >= top_p
        first = reached.int().argmax(dim=-1, keepdim=True)                     # first True (0 if none)
        first = torch.where(reached.any(dim=-1, keepdim=True), first, torch.full_like(first, ntoken - 1))
        keep_ranked = torch.arange(ntoken, device=scaled.device) <= first
        keep = torch.zeros_like(keep_ranked).scatter(-1, order, keep_ranked)
        scaled = scaled.masked_fill(~keep, float("-inf"))
    return torch.multinomial(torch.softmax(scaled, dim=-1), 1, generator=generator).squeeze(-1)
