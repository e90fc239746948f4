"""Returns a boolean mask with True where attention is allowed, the opposite of PyTorch's convention
for boolean masks (True = blocked) that the skeleton asks for.

question: square_mask_tests
replaces: square_mask
contract: a boolean mask is True where attention is blocked
"""


def generate_square_subsequent_mask(size):
    """Causal attention mask for a sequence of `size` tokens.

    Returns a float tensor of shape (size, size): entry [i, j] is 0.0 where query position i may attend
    to key position j (j <= i: itself and the past) and float('-inf') where it may not (j > i: the
    future). The mask is added to the attention scores before the softmax, so -inf becomes weight 0.
    Build it yourself; do not call nn.Transformer.generate_square_subsequent_mask.
    Our solution is 2 lines.
    """
    return torch.ones(size, size, dtype=torch.bool).tril()   # True = may attend
