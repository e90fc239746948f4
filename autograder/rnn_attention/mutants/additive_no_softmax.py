"""Returns the raw additive scores as weights, without normalising them with a softmax.

question: additive_attention_tests
replaces: additive_attention
"""


class AdditiveAttention(nn.Module):
    def forward(self, queries, keys, values):
        q = self.Wq(queries).unsqueeze(2)
        k = self.Wk(keys).unsqueeze(1)
        weights = self.v(torch.tanh(q + k)).squeeze(-1)
        return weights @ values, weights
