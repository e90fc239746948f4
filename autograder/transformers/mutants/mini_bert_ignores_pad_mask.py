"""Passes None instead of pad_mask to the blocks, so real tokens attend to padding.

question: mini_bert_tests
replaces: mini_bert
"""


class MiniBERT(nn.Module):
    def forward(self, tokens, pad_mask=None):
        embedding, _ = self.blocks((self.pos_encoding(self.embedding(tokens)), None))
        return self.head(embedding)
