"""Top-k by sorting each row and scattering the k best scores into a row of -inf, the softmax through
F.softmax on a temperature-scaled copy, and top-p by counting the kept ids with torch.searchsorted on the
running sum of the sorted probabilities and keeping that many ranks.

question: sample_next_tests
replaces: sample_next
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return torch.argmax(scores, dim=1)
    logits = scores.clone() / temperature
    if top_k is not None:
        best, where = torch.sort(logits, dim=-1, descending=True)
        kept = torch.full_like(logits, float("-inf"))
        logits = kept.scatter(-1, where[:, :top_k], best[:, :top_k])
    if top_p is not None:
        if math.isnan(top_p) or top_p <= 0 or top_p > 1:
            raise ValueError("top_p must lie in (0, 1]")
        if top_p != 1:
            probs, where = torch.sort(F.softmax(logits, dim=-1), dim=-1, descending=True, stable=True)
            target = torch.full((probs.size(0), 1), top_p, dtype=probs.dtype, device=probs.device)
            n_kept = torch.searchsorted(probs.cumsum(dim=-1), target) + 1  # first rank whose sum reaches p, plus one
            ranks = torch.arange(probs.size(-1), device=probs.device).expand_as(probs)
            dropped = torch.full_like(logits, float("-inf"))
            logits = torch.where((ranks < n_kept).scatter(-1, where, ranks < n_kept), logits, dropped)
    return torch.multinomial(F.softmax(logits, dim=-1), num_samples=1, generator=generator)[:, 0]
