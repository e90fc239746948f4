"""Replaces generator=None by torch.default_generator before drawing (the same CPU generator, so it seems harmless);
torch.multinomial no longer receives None, and for scores on a GPU it is handed the CPU generator, which it rejects.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-g
stated: "pass it on to torch.multinomial as it is (generator=generator, None included)"
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    if generator is None:
        generator = torch.default_generator   # torch's global generator
    scaled = scores / temperature
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled < kth_best, float("-inf"))
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = torch.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
            reached = ranked.cumsum(dim=-1) >= top_p
            cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
