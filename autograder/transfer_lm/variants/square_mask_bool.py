"""Returns the boolean form nn.TransformerEncoder also accepts, True where attention is blocked (strictly
above the diagonal), instead of the float 0 / -inf mask.

question: square_mask_tests
replaces: square_mask
source: PyTorch tutorial "Language Modeling with nn.Transformer" (the boolean mask of later versions)
"""


def generate_square_subsequent_mask(size):
    return torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=1)
