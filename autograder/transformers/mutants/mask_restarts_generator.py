"""Works on a copy of the generator (a new torch.Generator set to the caller's state) so as to leave the
caller's generator untouched: every call with the same generator then draws the same numbers, and
pre-training, which passes one generator to every step, masks each batch the same way at every step.

question: mask_inputs_tests
replaces: mask_inputs
"""


def mask_inputs(tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15, only_mask=False, generator=None):
    if generator is not None:
        copy = torch.Generator()
        copy.set_state(generator.get_state())
        generator = copy
    real = tokens != pad_token_id
    selected = (torch.rand(tokens.shape, generator=generator) < mask_rate) & real
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
