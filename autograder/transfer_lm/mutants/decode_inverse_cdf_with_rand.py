"""Samples by hand with the inverse CDF: one torch.rand per row from the generator, then counts how many
cumulative probabilities lie below it, instead of passing the generator to torch.multinomial; a seed
gives other draws than multinomial's, and a uniform above the float total returns id ntoken.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-a
contract: pass the generator to torch.multinomial
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled < kth_best, float("-inf"))
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = torch.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
            ahead = ranked.cumsum(dim=-1) - ranked
            cut_ranked = ahead >= top_p
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    cdf = torch.softmax(scaled, dim=-1).cumsum(dim=-1)
    u = torch.rand(cdf.size(0), 1, generator=generator, dtype=cdf.dtype, device=cdf.device)
    return (cdf < u).sum(dim=-1)
