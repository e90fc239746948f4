"""Builds the mask with triu(diagonal=2), so query i can also see key i + 1.

question: causal_attention_tests
replaces: causal_attention
"""


class CausalScaledDotAttention(nn.Module):
    def forward(self, queries, keys, values):
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)
        scores = q @ k.transpose(1, 2) / math.sqrt(self.hidden_size)
        T_q, T_k = scores.shape[-2:]
        future = torch.ones(T_q, T_k, dtype=torch.bool).triu(diagonal=2)
        weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        return weights @ v, weights
