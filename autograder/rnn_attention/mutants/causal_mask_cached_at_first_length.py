"""Builds the mask on the first call and keeps it on the module to save rebuilding it, sized for that
first call's length: a later sequence of another length gets a mask of the wrong size.

question: causal_attention_tests
replaces: causal_attention
"""


class CausalScaledDotAttention(nn.Module):
    def forward(self, queries, keys, values):
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)
        scores = q @ k.transpose(1, 2) / math.sqrt(self.hidden_size)
        if getattr(self, "future", None) is None:
            T_q, T_k = scores.shape[-2:]
            self.future = torch.ones(T_q, T_k, dtype=torch.bool, device=scores.device).triu(diagonal=1)
        weights = torch.softmax(scores.masked_fill(self.future, float("-inf")), dim=-1)
        return weights @ v, weights
