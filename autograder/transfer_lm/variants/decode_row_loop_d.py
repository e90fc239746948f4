"""A correct solution that works one row at a time: top-k with each row's k-th best score, and top-p by counting
how many ranked ids come before the running sum reaches p (one more id is then kept), then a single batched
torch.multinomial over the stacked rows.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-d
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return torch.stack([row.argmax() for row in scores])
    rows = []
    for row in scores / temperature:
        if top_k is not None:
            row = row.masked_fill(row < row.topk(top_k).values[-1], float("-inf"))
        rows.append(row)
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p != 1:
            for i, row in enumerate(rows):
                probs = torch.softmax(row, dim=-1)
                order = probs.argsort(descending=True, stable=True)
                n_keep = int((probs[order].cumsum(dim=0) < top_p).sum()) + 1
                cut = torch.ones_like(row, dtype=torch.bool)
                cut[order[:n_keep]] = False
                rows[i] = row.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(torch.stack(rows), dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator)[:, 0]
