"""Reads "a seed repeats a draw exactly" as an order to reset the generator: each call re-seeds the
caller's generator with its own initial seed before drawing, so successive calls with one generator
repeat the same draws instead of moving on.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-a
contract: successive calls with one generator go on from where it stands (do not re-seed it)
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
    probabilities = torch.softmax(scaled, dim=-1)
    if generator is not None:
        generator.manual_seed(generator.initial_seed())  # same seed, same draw
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
