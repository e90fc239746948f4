"""Builds the mask the wrong way round (lower instead of upper triangle): every position sees the
future and none of its past.

question: square_mask_tests
replaces: square_mask
"""


def generate_square_subsequent_mask(size):
    """Causal attention mask for a sequence of `size` tokens.

    Returns a float tensor of shape (size, size): entry [i, j] is 0.0 where query position i may attend
    to key position j (j <= i: itself and the past) and float('-inf') where it may not (j > i: the
    future). The mask is added to the attention scores before the softmax, so -inf becomes weight 0.
    Build it yourself; do not call nn.Transformer.generate_square_subsequent_mask.
    Our solution is 2 lines.
    """
    blocked = torch.ones(size, size, dtype=torch.bool).tril(diagonal=-1)  # True strictly below the diagonal
    return torch.zeros(size, size).masked_fill(blocked, float("-inf"))     # (size, size) float
