"""Squeezes axis 0 of the context and weights, written while trying one sentence at a time; a batch of one
loses its batch axis.

question: causal_attention_tests
replaces: causal_attention
contract: context is (batch, seq, hidden) and weights (batch, seq, seq) for any batch size, one included
"""


class CausalScaledDotAttention(nn.Module):
    def forward(self, queries, keys, values):
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)
        scores = q @ k.transpose(1, 2) / math.sqrt(self.hidden_size)
        T_q, T_k = scores.shape[-2:]
        future = torch.ones(T_q, T_k, dtype=torch.bool, device=scores.device).triu(diagonal=1)
        weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        return (weights @ v).squeeze(0), weights.squeeze(0)
