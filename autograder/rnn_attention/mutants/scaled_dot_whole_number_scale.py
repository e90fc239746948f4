"""Divides the scores by int(math.sqrt(hidden_size)), a whole-number scale: right when hidden_size is a
perfect square (4, 16, 64), too small a divisor otherwise.

question: scaled_dot_attention_tests
replaces: scaled_dot_attention
"""


class ScaledDotAttention(nn.Module):
    def forward(self, queries, keys, values):
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)
        scores = q @ k.transpose(1, 2) / int(math.sqrt(self.hidden_size))
        weights = torch.softmax(scores, dim=-1)
        return weights @ v, weights
