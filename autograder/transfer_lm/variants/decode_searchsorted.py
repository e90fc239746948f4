"""Top-p by binary search: torch.searchsorted finds, in each row's running sum, the first rank at which it
reaches p; ranks up to it are kept, and the kept ranks are sent back to id order with the inverse
permutation (argsort of the sort order). Top-k via the k-th value of a descending sort.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-c
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=1)
    logits = scores.div(temperature)
    if top_k is not None:
        kth = logits.sort(dim=-1, descending=True).values[:, top_k - 1:top_k]
        logits = torch.where(logits >= kth, logits, torch.full_like(logits, float("-inf")))
    if top_p is not None:
        if top_p <= 0 or top_p > 1 or top_p != top_p:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p != 1:
            ranked, order = torch.sort(torch.softmax(logits, dim=-1), dim=-1, descending=True, stable=True)
            running = torch.cumsum(ranked, dim=-1)
            last = torch.searchsorted(running, torch.full_like(running[:, :1], top_p))   # (batch, 1)
            ranks = torch.arange(running.shape[-1], device=scores.device).expand_as(running)
            keep_ranked = ranks <= last
            keep = keep_ranked.gather(-1, order.argsort(dim=-1))
            logits = logits.masked_fill(~keep, float("-inf"))
    return torch.multinomial(torch.softmax(logits, dim=-1), num_samples=1, generator=generator)[:, 0]
