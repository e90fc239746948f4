"""Applies the output layer through its weights, F.linear(hidden, self.head.weight, self.head.bias), the
form that weight tying with the embedding takes.

question: mini_bert_tests
replaces: mini_bert
"""


class MiniBERT(nn.Module):
    def forward(self, tokens, pad_mask=None):
        hidden = self.pos_encoding(self.embedding(tokens))
        hidden, _ = self.blocks((hidden, pad_mask))
        return F.linear(hidden, self.head.weight, self.head.bias)
