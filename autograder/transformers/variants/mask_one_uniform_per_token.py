"""Draws a single uniform number u per token: u < mask_rate selects it, and u / mask_rate, which is uniform
on [0, 1) once the token is selected, chooses [MASK], random or kept. Random ids are drawn afterwards, only
for the tokens that need one, so the generator is consumed in another order than the solution's.

question: mask_inputs_tests
replaces: mask_inputs
"""


def mask_inputs(tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15, only_mask=False,
                generator=None):
    u = torch.rand(tokens.shape, generator=generator)
    selected = (u < mask_rate) & (tokens != pad_token_id)
    labels = tokens.masked_fill(~selected, -100)
    share = u / mask_rate if mask_rate > 0 else u
    to_mask = selected & ((share < 0.8) | only_mask)
    to_random = selected & ~to_mask & (share < 0.9)
    masked = tokens.masked_fill(to_mask, mask_token_id)
    drawn = torch.randint(0, vocab_size - 1, (int(to_random.sum()),), generator=generator)
    masked[to_random] = (drawn + (drawn >= pad_token_id).long()).to(tokens.dtype)
    return masked, labels
