"""Divides the caller's scores by the temperature in place (scores /= temperature), changing the tensor
it was given.

question: sample_next_tests
replaces: sample_next
contract: do not modify the scores
"""


def sample_next(scores, temperature=1.0, top_k=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scores /= temperature
    if top_k is not None:
        kth_best = scores.topk(top_k, dim=-1).values[:, -1:]
        scores.masked_fill_(scores < kth_best, float("-inf"))
    probabilities = torch.softmax(scores, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
