"""Forgets to multiply the embeddings by sqrt(nhid) before adding the positions.

question: transformer_model_tests
replaces: transformer_model
"""


class TransformerBase(nn.Module):
    def forward(self, src, src_mask):
        x = self.embedding(src)   # (batch, seq, nhid)
        x = self.pos_encoder(x)                           # (batch, seq, nhid)
        return self.encoder(x, mask=src_mask)             # (batch, seq, nhid)
