"""Top-k by sorting each row and scattering the k best scores into a row of -inf, and the softmax through
F.softmax on a temperature-scaled copy.

question: sample_next_tests
replaces: sample_next
"""


def sample_next(scores, temperature=1.0, top_k=None, generator=None):
    if temperature == 0:
        return torch.argmax(scores, dim=1)
    logits = scores.clone() / temperature
    if top_k is not None:
        best, where = torch.sort(logits, dim=-1, descending=True)
        kept = torch.full_like(logits, float("-inf"))
        logits = kept.scatter(-1, where[:, :top_k], best[:, :top_k])
    return torch.multinomial(F.softmax(logits, dim=-1), num_samples=1, generator=generator)[:, 0]
