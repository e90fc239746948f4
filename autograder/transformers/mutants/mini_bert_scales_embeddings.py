"""Multiplies the token embeddings by sqrt(embed_dim) before the positional encoding, as the original
Transformer paper (and transfer_lm's language model) does; this MiniBERT's contract feeds them in unscaled.

question: mini_bert_tests
replaces: mini_bert
contract: the embeddings enter the positional encoding unscaled
"""


class MiniBERT(nn.Module):
    def forward(self, tokens, pad_mask=None):
        embedding = self.pos_encoding(self.embedding(tokens) * math.sqrt(self.embedding.embedding_dim))
        embedding, _ = self.blocks((embedding, pad_mask))
        return self.head(embedding)
