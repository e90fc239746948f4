"""Builds the causal mask the way PyTorch's transformer tutorial does, a float matrix from
torch.triu(torch.ones(n, n), 1) with -inf where it is 1 and 0 elsewhere, and adds it to the scores.

question: causal_attention_tests
replaces: causal_attention
source: PyTorch tutorial "Language Modeling with nn.Transformer" (generate_square_subsequent_mask)
"""


class CausalScaledDotAttention(nn.Module):
    def forward(self, queries, keys, values):
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)
        n = q.size(1)
        mask = torch.triu(torch.ones(n, n), 1)
        mask = mask.masked_fill(mask == 1, float("-inf"))
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.hidden_size) + mask
        weights = scores.softmax(dim=-1)
        return torch.matmul(weights, v), weights
