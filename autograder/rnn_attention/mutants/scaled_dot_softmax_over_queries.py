"""Normalises the scores over the query axis (softmax over dim=1) instead of over the keys.

question: scaled_dot_attention_tests
replaces: scaled_dot_attention
"""


class ScaledDotAttention(nn.Module):
    def forward(self, queries, keys, values):
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)
        scores = q @ k.transpose(1, 2) / math.sqrt(self.hidden_size)
        weights = torch.softmax(scores, dim=1)
        return weights @ v, weights
