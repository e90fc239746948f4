"""Takes the threshold as the (k+1)-th largest score, sorted_values[:, top_k], and cuts scores <= it: the same k ids
whenever k < ntoken, but top_k == ntoken (keep everything) indexes past the end and raises IndexError.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-g
stated: "an int k with 1 <= k <= ntoken keeps only the k largest scores of each row"
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
    if top_k is not None:
        first_cut = scaled.sort(dim=-1, descending=True).values[:, top_k].unsqueeze(-1)   # best score not kept
        scaled = scaled.masked_fill(scaled <= first_cut, float("-inf"))
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
