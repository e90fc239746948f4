"""Scales the embeddings by nhid ** 0.5 and picks each review's last real token with torch.gather on an
index tensor instead of advanced indexing with a row range.

question: transformer_model_tests
replaces: transformer_model
"""


class TransformerBase(nn.Module):
    def forward(self, src, src_mask):
        return self.encoder(self.pos_encoder(self.embedding(src) * self.nhid ** 0.5), mask=src_mask)


class Model(nn.Module):
    def forward(self, src, src_mask, lengths=None):
        hidden = self.base(src, src_mask)
        if lengths is None:
            return self.head(hidden)
        index = (lengths.to(src.device) - 1).view(-1, 1, 1).expand(-1, 1, hidden.size(-1))
        return self.head(hidden.gather(1, index).squeeze(1))
