"""Top-p keeps an id while the mass ranked before it is below p, that mass taken as the running sum minus the
id's own probability (the course's reference was once written so). Equal to the shifted running sum in exact
arithmetic; in float32 it may differ in the last bit, which the skeleton leaves open (blind round 2026-12-c
wrote it as a mistake; judged acceptable, see autograder/README.md "Blind hunts").

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
            ranked, order = torch.softmax(scaled, dim=-1).sort(dim=-1, descending=True, stable=True)
            before = ranked.cumsum(dim=-1) - ranked          # mass of the ids ranked before this one
            cut_ranked = before >= top_p
            cut = torch.zeros_like(cut_ranked).scatter(-1, order, cut_ranked)
            scaled = scaled.masked_fill(cut, float("-inf"))
    probabilities = torch.softmax(scaled, dim=-1)
    return torch.multinomial(probabilities, 1, generator=generator).squeeze(-1)
