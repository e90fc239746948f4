"""Finds the k-th largest score with kthvalue (the (V - k + 1)-th smallest) and keeps the scores at or above it
with torch.where; ranks for top-p by sorting the negated probabilities in ascending order with stable=True,
keeps the ids whose running sum before them is still below p (the running sum shifted right with F.pad),
and maps the ranked mask back to id order with the inverse permutation (argsort of the order, then gather).

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-b
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return torch.argmax(scores, dim=-1)
    logits = scores / temperature
    if top_k is not None:
        kth = logits.kthvalue(logits.size(-1) - top_k + 1, dim=-1, keepdim=True).values
        logits = torch.where(logits >= kth, logits, torch.full_like(logits, float("-inf")))
    if top_p is not None:
        if top_p <= 0 or top_p > 1 or top_p != top_p:
            raise ValueError(f"top_p should be in (0, 1], not {top_p}")
        if top_p != 1:
            probs = F.softmax(logits, dim=-1)
            negated, order = torch.sort(-probs, dim=-1, stable=True)
            ranked = -negated
            mass_before = F.pad(ranked.cumsum(dim=-1)[:, :-1], (1, 0))
            keep_ranked = mass_before < top_p
            keep = keep_ranked.gather(-1, order.argsort(dim=-1))
            logits = torch.where(keep, logits, torch.full_like(logits, float("-inf")))
    return torch.multinomial(F.softmax(logits, dim=-1), num_samples=1, generator=generator)[:, 0]
