"""Uses the original tokens as labels everywhere instead of -100 at unselected positions.

question: mask_inputs_tests
replaces: mask_inputs
contract: labels are -100 where nothing was selected
"""


def mask_inputs(tokens, vocab_size, mask_token_id, pad_token_id=0, mask_rate=0.15, only_mask=False,
                generator=None):
    real = tokens != pad_token_id
    selected = (torch.rand(tokens.shape, generator=generator) < mask_rate) & real
    labels = tokens.clone()
    choice = torch.rand(tokens.shape, generator=generator)
    if only_mask:
        choice = torch.zeros_like(choice)
    random_tokens = torch.randint(1, vocab_size, tokens.shape, generator=generator)
    masked = torch.where(selected & (choice < 0.8), torch.full_like(tokens, mask_token_id), tokens)
    masked = torch.where(selected & (choice >= 0.8) & (choice < 0.9), random_tokens, masked)
    return masked, labels
