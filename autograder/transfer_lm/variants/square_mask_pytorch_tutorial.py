"""Builds the mask the way PyTorch's transformer tutorial used to: a lower-triangular boolean from
torch.triu(...).transpose(0, 1), turned into a float mask with masked_fill (-inf where it is False, 0
where it is True).

question: square_mask_tests
replaces: square_mask
source: PyTorch tutorial "Language Modeling with nn.Transformer" (its first generate_square_subsequent_mask)
"""


def generate_square_subsequent_mask(size):
    mask = (torch.triu(torch.ones(size, size)) == 1).transpose(0, 1)
    return mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, float(0.0))
