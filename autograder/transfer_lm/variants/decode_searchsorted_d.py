"""A correct solution that finds, per row, the rank where the running sum first reaches p with torch.searchsorted
(the row length when it never does), cuts the ranks after it, and maps the cut back to id order through the inverse
permutation (argsort of the sort order).

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-d
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(-1)
    logits = scores / temperature
    if top_k is not None:
        logits = logits.masked_fill(logits < logits.topk(top_k, dim=-1).values.amin(-1, keepdim=True), float("-inf"))
    if top_p is not None:
        if top_p != top_p or top_p <= 0 or top_p > 1:  # NaN is the only value unequal to itself
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True, stable=True)
            running = ranked.cumsum(dim=-1).contiguous()
            first_reach = torch.searchsorted(running, torch.full_like(running[:, :1], top_p))  # (batch, 1)
            ranks = torch.ones_like(order).cumsum(dim=-1) - 1
            cut = (ranks > first_reach).gather(-1, order.argsort(dim=-1))
            logits = logits.masked_fill(cut, float("-inf"))
    return torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=generator).view(-1)
