"""Forgets to divide the dot products by sqrt(hidden_size).

question: scaled_dot_attention_tests
replaces: scaled_dot_attention
"""


class ScaledDotAttention(nn.Module):
    def forward(self, queries, keys, values):
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)
        weights = torch.softmax(q @ k.transpose(1, 2), dim=-1)
        return weights @ v, weights
