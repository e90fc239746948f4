"""Samples among the k best ids only (a softmax over the topk values) and maps the drawn position back to
its id with gather; without top_k it samples over the whole row.

question: sample_next_tests
replaces: sample_next
"""


def sample_next(scores, temperature=1.0, top_k=None, generator=None):
    if temperature == 0:
        return scores.argmax(-1)
    if top_k is None:
        return torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator).view(-1)
    values, ids = scores.topk(top_k, dim=-1)
    pick = torch.multinomial(torch.softmax(values / temperature, -1), 1, generator=generator)
    return ids.gather(-1, pick).view(-1)
