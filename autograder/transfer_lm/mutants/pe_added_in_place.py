"""Adds the table to the embeddings in place (x += pe) to save memory: the output is right, but the
caller's tensor changes under it.

question: positional_encoding_tests
replaces: positional_encoding
"""


class PositionalEncoding(nn.Module):
    def forward(self, x):
        x += self.pe[: x.size(1)]
        return self.dropout(x)
