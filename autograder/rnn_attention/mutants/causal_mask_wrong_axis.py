"""Masks with tril instead of triu (the transposed mask), so query i sees only keys j >= i.

question: causal_attention_tests
replaces: causal_attention
"""


class CausalScaledDotAttention(nn.Module):
    def forward(self, queries, keys, values):
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)
        scores = q @ k.transpose(1, 2) / math.sqrt(self.hidden_size)
        T_q, T_k = scores.shape[-2:]
        past = torch.ones(T_q, T_k, dtype=torch.bool).tril(diagonal=-1)
        weights = torch.softmax(scores.masked_fill(past, float("-inf")), dim=-1)
        return weights @ v, weights
