"""Uses functional calls on the layers' own weights (F.linear, torch.bmm, F.softmax) and multiplies by
hidden_size ** -0.5 instead of dividing by math.sqrt.

question: scaled_dot_attention_tests
replaces: scaled_dot_attention
"""


class ScaledDotAttention(nn.Module):
    def forward(self, queries, keys, values):
        q = F.linear(queries, self.Wq.weight, self.Wq.bias)
        k = F.linear(keys, self.Wk.weight, self.Wk.bias)
        v = F.linear(values, self.Wv.weight, self.Wv.bias)
        weights = F.softmax(torch.bmm(q, k.transpose(1, 2)) * self.hidden_size ** -0.5, dim=-1)
        return torch.bmm(weights, v), weights
