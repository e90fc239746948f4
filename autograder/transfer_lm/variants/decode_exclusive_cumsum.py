"""Computes the mass ranked before each id as a shifted cumulative sum (a zero column, then cumsum
without its last column) and keeps the ids whose mass before them is still below p, with torch.where
for the top-k cut; the reference subtracts each probability from the inclusive cumsum and cuts with
masked_fill.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-a
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return torch.argmax(scores, dim=-1)
    logits = scores / temperature
    minus_inf = torch.tensor(float("-inf"), dtype=logits.dtype, device=logits.device)
    if top_k is not None:
        threshold = torch.topk(logits, top_k, dim=-1).values[..., -1, None]
        logits = torch.where(logits >= threshold, logits, minus_inf)
    if top_p is not None:
        if not top_p > 0 or top_p > 1:  # not > 0 holds for NaN too
            raise ValueError("top_p must satisfy 0 < top_p <= 1")
        if top_p != 1:
            probs, ids = torch.sort(F.softmax(logits, dim=-1), dim=-1, descending=True, stable=True)
            running = probs.cumsum(dim=-1)
            before = torch.cat([torch.zeros_like(running[..., :1]), running[..., :-1]], dim=-1)
            keep_sorted = before < top_p
            keep = torch.empty_like(keep_sorted).scatter_(-1, ids, keep_sorted)
            logits = torch.where(keep, logits, minus_inf)
    choice = torch.multinomial(F.softmax(logits, dim=-1), num_samples=1, generator=generator)
    return choice[:, 0]
