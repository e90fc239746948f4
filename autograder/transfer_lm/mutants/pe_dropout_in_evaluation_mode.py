"""Keeps the rate as a number and calls F.dropout(x + pe, self.p) in forward, not knowing that F.dropout's
training argument defaults to True: the sum is dropped out in evaluation mode too.

question: positional_encoding_tests
replaces: positional_encoding
contract: dropout applies in training mode only
"""


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.p = dropout
        pos = torch.arange(max_len, dtype=torch.float32)[:, None]
        two_i = torch.arange(0, d_model, 2, dtype=torch.float32)[None, :]
        angle = pos / torch.pow(10000.0, two_i / d_model)
        pe = torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return F.dropout(x + self.pe[: x.size(1)], self.p)
