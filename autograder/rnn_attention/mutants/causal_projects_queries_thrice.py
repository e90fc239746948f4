"""Reads self-attention as "everything comes from one sequence" and projects the queries argument three
times, ignoring keys and values; the decoder passes the same tensor three times, so nothing shows there.

question: causal_attention_tests
replaces: causal_attention
contract: keys and values are read from their own arguments
"""


class CausalScaledDotAttention(nn.Module):
    def forward(self, queries, keys, values):
        x = queries
        q, k, v = self.Wq(x), self.Wk(x), self.Wv(x)
        scores = q @ k.transpose(1, 2) / math.sqrt(self.hidden_size)
        T_q, T_k = scores.shape[-2:]
        future = torch.ones(T_q, T_k, dtype=torch.bool, device=scores.device).triu(diagonal=1)
        weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        return weights @ v, weights
