"""Runs the blocks in a Python loop instead of calling the nn.Sequential once, and names the steps.

question: mini_bert_tests
replaces: mini_bert
"""


class MiniBERT(nn.Module):
    def forward(self, tokens, pad_mask=None):
        hidden = self.embedding(tokens)
        hidden = self.pos_encoding(hidden)
        for block in self.blocks:
            hidden, pad_mask = block((hidden, pad_mask))
        return self.head(hidden)
