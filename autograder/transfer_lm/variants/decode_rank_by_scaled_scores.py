"""Top-p ranks the ids by their scaled scores (a stable sort of the logits, as many published implementations
do) and takes the softmax of the sorted scores for the running sum. Softmax keeps the order of the scores, so
this ranks as probabilities do except where two different scores round to one probability, which the
skeleton leaves open (blind round 2026-12-c wrote it as a mistake; judged acceptable, see
autograder/README.md "Blind hunts").

question: sample_next_tests
replaces: sample_next
hunt: 2026-12-c
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(dim=-1)
    scaled = scores / temperature
    if top_k is not None:
        kth_best = scaled.topk(top_k, dim=-1).values[:, -1:]
        scaled = scaled.masked_fill(scaled < kth_best, float("-inf"))
    if top_p is not None:
        if not 0 < top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1]; got {top_p}")
        if top_p < 1:
            sorted_scores, order = scaled.sort(dim=-1, descending=True, stable=True)
            reached = torch.softmax(sorted_scores, dim=-1).cumsum(dim=-1) >= top_p
            cut_ranked = torch.cat([torch.zeros_like(reached[:, :1]), reached[:, :-1]], dim=-1)
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
