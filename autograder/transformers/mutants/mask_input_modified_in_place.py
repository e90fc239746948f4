"""Writes [MASK] and the random tokens straight into the input tensor instead of a copy.

question: mask_inputs_tests
replaces: mask_inputs
contract: tokens is not modified
"""


def mask_inputs(tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15, only_mask=False,
                generator=None):
    real = tokens != pad_token_id
    selected = (torch.rand(tokens.shape, generator=generator) < mask_rate) & real
    labels = torch.where(selected, tokens, torch.full_like(tokens, -100))
    choice = torch.rand(tokens.shape, generator=generator)
    if only_mask:
        choice = torch.zeros_like(choice)
    random_tokens = torch.randint(1, vocab_size, tokens.shape, generator=generator)
    to_random = selected & (choice >= 0.8) & (choice < 0.9)
    tokens[selected & (choice < 0.8)] = mask_token_id
    tokens[to_random] = random_tokens[to_random]
    return tokens, labels
