"""Reads the dropout argument as the probability of keeping an entry, as some papers and frameworks
write it, and builds nn.Dropout(1 - dropout): at 0.5 nothing shows, at 0.1 it zeroes 90% of the sum.

question: positional_encoding_tests
replaces: positional_encoding
"""


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(1 - dropout)
        pos = torch.arange(max_len, dtype=torch.float32)[:, None]
        two_i = torch.arange(0, d_model, 2, dtype=torch.float32)[None, :]
        angle = pos / torch.pow(10000.0, two_i / d_model)
        pe = torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1)
        self.register_buffer("pe", pe)
