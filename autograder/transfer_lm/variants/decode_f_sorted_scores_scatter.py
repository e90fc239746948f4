"""Builds the top-k row by scattering torch.topk's values into a row of -inf; ranks for top-p by a stable sort of the
scaled scores (the order of their probabilities), takes the softmax of the sorted scores, and keeps the ids before
which no running sum has reached p (a count of reached positions), scattered back with scatter_.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-f
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(-1)
    logits = scores / temperature
    if top_k is not None:
        best = torch.topk(logits, top_k, dim=-1)
        logits = torch.full_like(logits, float("-inf")).scatter(-1, best.indices, best.values)
    if top_p is not None:
        if not (0 < top_p <= 1):
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            sorted_logits, order = torch.sort(logits, dim=-1, descending=True, stable=True)
            reached = (torch.softmax(sorted_logits, dim=-1).cumsum(dim=-1) >= top_p).long()
            keep_sorted = (reached.cumsum(dim=-1) - reached) == 0              # nothing reached before this id
            keep = torch.empty_like(keep_sorted).scatter_(-1, order, keep_sorted)
            logits = logits.masked_fill(~keep, float("-inf"))
    probabilities = torch.softmax(logits, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).reshape(scores.shape[0])
