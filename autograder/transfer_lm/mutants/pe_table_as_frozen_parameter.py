"""Keeps the table out of training with nn.Parameter(pe, requires_grad=False) instead of a buffer: a
frozen parameter is still a parameter, listed by model.parameters() and handed to the optimizer.

question: positional_encoding_tests
replaces: positional_encoding
contract: the table is a buffer, not a parameter
"""


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        pos = torch.arange(max_len, dtype=torch.float32)[:, None]
        two_i = torch.arange(0, d_model, 2, dtype=torch.float32)[None, :]
        angle = pos / torch.pow(10000.0, two_i / d_model)
        pe = torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1)
        self.pe = nn.Parameter(pe, requires_grad=False)
