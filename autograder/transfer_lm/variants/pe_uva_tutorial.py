"""Follows the UvA tutorial's positional encoding: the frequencies as exp(-2i ln(10000) / d), the table
written into even and odd columns, kept as a (1, max_len, d_model) buffer outside the state dict
(persistent=False) and sliced along its second axis.

question: positional_encoding_tests
replaces: positional_encoding
source: UvA Deep Learning Tutorials, tutorial 6 (PositionalEncoding)
"""


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0)
        self.register_buffer("pe", pe, persistent=False)

    def forward(self, x):
        x = x + self.pe[:, : x.size(1)]
        return self.dropout(x)
