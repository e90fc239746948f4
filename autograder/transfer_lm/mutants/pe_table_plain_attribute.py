"""Keeps the table as a plain attribute (self.pe = pe) instead of registering it as a buffer: nothing
counts it as a parameter and every value is right on the CPU, but model.to(DEVICE) leaves it behind,
so on a GPU the addition mixes devices and fails.

question: positional_encoding_tests
replaces: positional_encoding
contract: the table is a buffer (self.register_buffer), so that it moves with the model
"""


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        pos = torch.arange(max_len, dtype=torch.float32)[:, None]
        two_i = torch.arange(0, d_model, 2, dtype=torch.float32)[None, :]
        angle = pos / torch.pow(10000.0, two_i / d_model)
        self.pe = torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1)
