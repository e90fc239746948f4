"""Selects with torch.bernoulli and picks each selected token's corruption with torch.multinomial over
(0.8, 0.1, 0.1), working on the selected positions only: other calls and another order of draws from the
generator than the solution's.

question: mask_inputs_tests
replaces: mask_inputs
"""


def mask_inputs(tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15, only_mask=False,
                generator=None):
    chance = torch.full(tokens.shape, float(mask_rate))
    selected = torch.bernoulli(chance, generator=generator).bool() & (tokens != pad_token_id)
    labels = torch.where(selected, tokens, -100)
    positions = selected.nonzero(as_tuple=True)
    n = len(positions[0])
    if only_mask or n == 0:
        kind = torch.zeros(n, dtype=torch.long)
    else:
        kind = torch.multinomial(torch.tensor([0.8, 0.1, 0.1]), n, replacement=True, generator=generator)
    random_ids = torch.randint(0, vocab_size - 1, (n,), generator=generator)
    random_ids = random_ids + (random_ids >= pad_token_id).long()
    values = tokens[positions]
    values = torch.where(kind == 0, torch.full_like(values, mask_token_id), values)
    values = torch.where(kind == 1, random_ids.to(values.dtype), values)
    masked = tokens.clone()
    masked[positions] = values
    return masked, labels
