"""Builds "keep" masks rather than "cut" masks: top-k keeps ids at or above the k-th value of an unsorted
topk; top-p keeps rank 0 always and every later rank whose preceding running sum is still below p, written
in place into a rank mask and scattered (in place) back to id order; -inf is put where keep is False.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-c
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return torch.argmax(scores, dim=-1)
    neg_inf = float("-inf")
    scaled = torch.div(scores, temperature)
    if top_k is not None:
        kth = torch.topk(scaled, top_k, dim=-1, sorted=False).values.amin(dim=-1, keepdim=True)
        scaled = scaled.masked_fill(~(scaled >= kth), neg_inf)
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            ranked, order = torch.sort(torch.softmax(scaled, dim=-1), dim=-1, descending=True, stable=True)
            below = ranked.cumsum(dim=-1) < top_p                      # running sum not yet at p
            keep_ranked = torch.ones_like(below)
            keep_ranked[..., 1:] = below[..., :-1]                     # keep up to the one that reaches it
            keep = torch.empty_like(keep_ranked).scatter_(-1, order, keep_ranked)
            scaled = scaled.masked_fill(~keep, neg_inf)
    return torch.multinomial(torch.softmax(scaled, dim=-1), 1, generator=generator).squeeze(-1)
