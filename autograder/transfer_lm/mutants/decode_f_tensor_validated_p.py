"""The student turns p into a tensor of the scores' dtype on their device (to compare it with the running sum) and
validates that tensor; in float16 or bfloat16 a p just above 1 (1.0001) rounds to 1 and is accepted instead of
raising ValueError.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-f
stated: "Any other p (0 or below, above 1, NaN) raises ValueError."
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled < kth_best, float("-inf"))
    if top_p is not None:
        p = torch.as_tensor(top_p, dtype=scaled.dtype, device=scaled.device)
        if not bool((p > 0) & (p <= 1)):
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if p < 1:
            ranked, order = torch.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
            reached = ranked.cumsum(dim=-1) >= p
            cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
