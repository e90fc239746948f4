"""Draws the random replacement ids with torch.randint(...) without generator=generator, so they come from
PyTorch's global random state: the selection follows the generator, the replacements do not, and two calls
with generators seeded alike replace with different ids.

question: mask_inputs_tests
replaces: mask_inputs
"""


def mask_inputs(tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15, only_mask=False, generator=None):
    real = tokens != pad_token_id
    selected = (torch.rand(tokens.shape, generator=generator) < mask_rate) & real
    labels = torch.where(selected, tokens, torch.full_like(tokens, -100))
    choice = torch.rand(tokens.shape, generator=generator)
    if only_mask:
        choice = torch.zeros_like(choice)
    to_mask = selected & (choice < 0.8)
    to_random = selected & (choice >= 0.8) & (choice < 0.9)
    random_tokens = torch.randint(0, vocab_size - 1, tokens.shape)
    random_tokens = random_tokens + (random_tokens >= pad_token_id).long()
    masked = torch.where(to_mask, torch.full_like(tokens, mask_token_id), tokens)
    masked = torch.where(to_random, random_tokens.to(tokens.dtype), masked)
    return masked, labels
