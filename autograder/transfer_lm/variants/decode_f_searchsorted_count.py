"""Top-k through the k-th value of a full descending sort and torch.where; top-p finds, with torch.searchsorted on
each row's running sum, the first ranked position where it reaches p (left side: >= p) and keeps the ids ranked up
to it, through an arange comparison scattered back to id order.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-f
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return torch.argmax(scores, dim=-1)
    logits = scores / temperature
    minus_inf = torch.full_like(logits, float("-inf"))
    if top_k is not None:
        kth = logits.sort(dim=-1, descending=True).values[:, top_k - 1:top_k]
        logits = torch.where(logits < kth, minus_inf, logits)
    if top_p is not None:
        if not (top_p > 0 and top_p <= 1):
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p != 1:
            ranked, order = torch.sort(torch.softmax(logits, dim=-1), dim=-1, descending=True, stable=True)
            running = ranked.cumsum(dim=-1).contiguous()
            first = torch.searchsorted(running, torch.full_like(running[:, :1], top_p))      # (batch, 1)
            positions = torch.arange(running.shape[-1], device=running.device).expand_as(running)
            keep = torch.zeros_like(running, dtype=torch.bool).scatter(-1, order, positions <= first)
            logits = torch.where(keep, logits, minus_inf)
    return torch.multinomial(torch.softmax(logits, dim=-1), num_samples=1, generator=generator)[:, 0]
