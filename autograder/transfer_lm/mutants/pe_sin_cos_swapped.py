"""Puts the cosines in the even columns and the sines in the odd ones.

question: positional_encoding_tests
replaces: positional_encoding
"""


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        pos = torch.arange(max_len, dtype=torch.float32)[:, None]              # (max_len, 1)
        two_i = torch.arange(0, d_model, 2, dtype=torch.float32)[None, :]      # (1, d_model / 2)
        angle = pos / torch.pow(10000.0, two_i / d_model)                      # (max_len, d_model / 2)
        pe = torch.stack([angle.cos(), angle.sin()], dim=-1).flatten(1)        # (max_len, d_model): sin, cos, ...
        self.register_buffer("pe", pe)
