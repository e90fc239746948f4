"""Zeroes the future weights after the softmax, so the remaining weights no longer sum to 1.

question: causal_attention_tests
replaces: causal_attention
"""


class CausalScaledDotAttention(nn.Module):
    def forward(self, queries, keys, values):
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)
        scores = q @ k.transpose(1, 2) / math.sqrt(self.hidden_size)
        T_q, T_k = scores.shape[-2:]
        future = torch.ones(T_q, T_k, dtype=torch.bool).triu(diagonal=1)
        weights = torch.softmax(scores, dim=-1).masked_fill(future, 0.0)
        return weights @ v, weights
