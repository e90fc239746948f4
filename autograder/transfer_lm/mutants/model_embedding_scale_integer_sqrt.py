"""Scales the embeddings by int(self.nhid ** 0.5), keeping the factor a whole number like nhid itself:
right when nhid is a perfect square (16, 64), but for nhid 12 or 200 the embeddings are scaled by 3 or
14 instead of 3.46 or 14.14.

question: transformer_model_tests
replaces: transformer_model
"""


class TransformerBase(nn.Module):
    def forward(self, src, src_mask):
        x = self.embedding(src) * int(self.nhid**0.5)
        x = self.pos_encoder(x)
        return self.encoder(x, mask=src_mask)
