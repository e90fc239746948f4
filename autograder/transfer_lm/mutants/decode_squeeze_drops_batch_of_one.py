"""Calls .squeeze() on multinomial's (batch, 1) draws, which also drops the batch axis when there is a
single row: continue_text's one-row calls get a 0-d tensor back instead of shape (1,).

question: sample_next_tests
replaces: sample_next
contract: the ids have shape (batch,), (1,) for a single row
"""


def sample_next(scores, temperature=1.0, top_k=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled < kth_best, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze()
