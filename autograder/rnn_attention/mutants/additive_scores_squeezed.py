"""Squeezes the scores with .squeeze() to drop v's output axis of size one; with one sentence (or one query)
the batch (or query) axis goes too.

question: additive_attention_tests
replaces: additive_attention
contract: weights are (batch, k, seq) for any batch size, one included
"""


class AdditiveAttention(nn.Module):
    def forward(self, queries, keys, values):
        q = self.Wq(queries).unsqueeze(2)
        k = self.Wk(keys).unsqueeze(1)
        scores = self.v(torch.tanh(q + k)).squeeze()
        weights = torch.softmax(scores, dim=-1)
        return weights @ values, weights
