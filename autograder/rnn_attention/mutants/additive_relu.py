"""Uses a ReLU instead of tanh inside the scoring network.

question: additive_attention_tests
replaces: additive_attention
"""


class AdditiveAttention(nn.Module):
    def forward(self, queries, keys, values):
        q = self.Wq(queries).unsqueeze(2)
        k = self.Wk(keys).unsqueeze(1)
        scores = self.v(torch.relu(q + k)).squeeze(-1)
        weights = torch.softmax(scores, dim=-1)
        return weights @ values, weights
