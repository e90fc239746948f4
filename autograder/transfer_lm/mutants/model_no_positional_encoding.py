"""Builds the positional encoding in __init__ but forgets to apply it in forward: the embeddings go
straight into the encoder.

question: transformer_model_tests
replaces: transformer_model
"""


class TransformerBase(nn.Module):
    def forward(self, src, src_mask):
        x = self.embedding(src) * math.sqrt(self.nhid)   # (batch, seq, nhid)
        return self.encoder(x, mask=src_mask)             # (batch, seq, nhid)
