"""Turns the first 80% of the selected positions (in reading order) into [MASK], the next 10% into random
tokens and keeps the last 10%, instead of letting each selected token choose independently.

question: mask_inputs_tests
replaces: mask_inputs
"""


def mask_inputs(tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15, only_mask=False,
                generator=None):
    real = tokens != pad_token_id
    selected = (torch.rand(tokens.shape, generator=generator) < mask_rate) & real
    labels = torch.where(selected, tokens, torch.full_like(tokens, -100))
    masked = tokens.clone().flatten()
    positions = selected.flatten().nonzero().squeeze(1)
    n_mask = len(positions) if only_mask else int(0.8 * len(positions))
    n_random = 0 if only_mask else int(0.1 * len(positions))
    masked[positions[:n_mask]] = mask_token_id
    random_positions = positions[n_mask:n_mask + n_random]
    masked[random_positions] = torch.randint(1, vocab_size, (len(random_positions),), generator=generator)
    return masked.view_as(tokens), labels
