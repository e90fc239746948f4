"""Makes draws repeatable by seeding torch's global generator from the generator's seed, then draws without
the generator: a seed repeats a draw, but every later random draw of the program changes.

question: sample_next_tests
replaces: sample_next
contract: draw only with the generator argument, leaving torch's global random state alone
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    if generator is not None:
        torch.manual_seed(generator.initial_seed())
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
    return torch.multinomial(probabilities, 1).squeeze(-1)
