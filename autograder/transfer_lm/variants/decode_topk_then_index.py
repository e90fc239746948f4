"""Works in ranked order throughout: sorts each row once (or takes torch.topk's k best and
ranks them again, smaller id first among equal scores), applies top-p to the
ranked probabilities with an exclusive running sum, draws a rank and maps it back to its id with gather.

question: sample_next_tests
replaces: sample_next
"""


def sample_next(scores, temperature=1.0, top_k=None, top_p=None, generator=None):
    if temperature == 0:
        return scores.argmax(-1)
    if top_k is None:
        values, ids = scores.sort(dim=-1, descending=True, stable=True)
    else:
        values, ids = scores.topk(top_k, dim=-1)
        by_id = ids.argsort(dim=-1)  # topk's order of equal values is not id order: put them in id order, then
        values, ids = values.gather(-1, by_id), ids.gather(-1, by_id)
        values, ranked = values.sort(dim=-1, descending=True, stable=True)  # rank again, smaller id first
        ids = ids.gather(-1, ranked)
    probs = torch.softmax(values / temperature, -1)
    if top_p is not None:
        if not (0 < top_p <= 1):
            raise ValueError("top_p outside (0, 1]")
        if top_p < 1:
            before = torch.cat([torch.zeros_like(probs[:, :1]), probs.cumsum(-1)[:, :-1]], dim=-1)
            probs = probs * (before < top_p)
    pick = torch.multinomial(probs, 1, generator=generator)
    return ids.gather(-1, pick).view(-1)
