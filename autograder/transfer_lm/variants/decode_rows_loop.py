"""A loop over the rows: each row is scaled, cut by top-k and top-p on its own (a stable descending sort of its
probabilities and a running sum), and the masked rows are stacked for one torch.multinomial call.

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-c
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return torch.argmax(scores, dim=-1)
    rows = []
    for row in scores:
        row = row / temperature
        if top_k is not None:
            row = row.masked_fill(row < row.topk(top_k).values[-1], float("-inf"))
        if top_p is not None:
            if not 0 < top_p <= 1:
                raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
            if top_p < 1:
                ranked, order = torch.softmax(row, dim=-1).sort(descending=True, stable=True)
                reached = ranked.cumsum(dim=-1) >= top_p
                drop_ranked = torch.zeros_like(reached)
                drop_ranked[1:] = reached[:-1]                    # the id after the one that reaches p, on
                drop = torch.zeros_like(drop_ranked).scatter(0, order, drop_ranked)
                row = row.masked_fill(drop, float("-inf"))
        rows.append(torch.softmax(row, dim=-1))
    probabilities = torch.stack(rows)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
