"""Applies dropout to the embeddings first and adds the table afterwards, so in training mode the
position signal is never dropped and the zeroed entries come back as table values.

question: positional_encoding_tests
replaces: positional_encoding
"""


class PositionalEncoding(nn.Module):
    def forward(self, x):
        return self.dropout(x) + self.pe[: x.size(1)]
