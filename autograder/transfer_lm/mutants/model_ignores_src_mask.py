"""Never passes src_mask to the encoder, so every position attends to the tokens after it.

question: transformer_model_tests
replaces: transformer_model
"""


class TransformerBase(nn.Module):
    def forward(self, src, src_mask):
        x = self.embedding(src) * math.sqrt(self.nhid)   # (batch, seq, nhid)
        x = self.pos_encoder(x)                           # (batch, seq, nhid)
        return self.encoder(x)                            # (batch, seq, nhid)
