"""Draws the random replacements with torch.randint(1, vocab_size), which leaves out id 0 on the assumption
that it is the pad id; with another pad_token_id it can draw the pad id and never draws id 0.

question: mask_inputs_tests
replaces: mask_inputs
"""


def mask_inputs(tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15, only_mask=False,
                generator=None):
    real = tokens != pad_token_id
    selected = (torch.rand(tokens.shape, generator=generator) < mask_rate) & real
    labels = torch.where(selected, tokens, torch.full_like(tokens, -100))
    choice = torch.rand(tokens.shape, generator=generator)
    if only_mask:
        choice = torch.zeros_like(choice)
    to_mask = selected & (choice < 0.8)
    to_random = selected & (choice >= 0.8) & (choice < 0.9)
    random_tokens = torch.randint(1, vocab_size, tokens.shape, generator=generator)
    masked = torch.where(to_mask, torch.full_like(tokens, mask_token_id), tokens)
    masked = torch.where(to_random, random_tokens.to(tokens.dtype), masked)
    return masked, labels
