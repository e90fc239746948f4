"""Creates the positional encoding but never adds it: the embeddings go straight into the blocks.

question: mini_bert_tests
replaces: mini_bert
"""


class MiniBERT(nn.Module):
    def forward(self, tokens, pad_mask=None):
        embedding, _ = self.blocks((self.embedding(tokens), pad_mask))
        return self.head(embedding)
