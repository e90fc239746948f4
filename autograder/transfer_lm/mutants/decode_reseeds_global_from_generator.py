"""Makes draws repeatable by seeding torch's global generator from the generator's seed, then draws without
the generator: a seed repeats a draw, but every later random draw of the program changes.

question: sample_next_tests
replaces: sample_next
contract: draw only with the generator argument, leaving torch's global random state alone
"""


def sample_next(scores, temperature=1.0, top_k=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    if generator is not None:
        torch.manual_seed(generator.initial_seed())
    scaled = scores / temperature
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled < kth_best, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1).squeeze(-1)
