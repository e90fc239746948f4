"""Squeezes context and weights with .squeeze(), meaning to drop the single query axis of the recurrent
decoder; a batch of one loses its batch axis as well.

question: scaled_dot_attention_tests
replaces: scaled_dot_attention
contract: context is (batch, k, hidden) and weights (batch, k, seq) for any batch size, one included
"""


class ScaledDotAttention(nn.Module):
    def forward(self, queries, keys, values):
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)
        scores = q @ k.transpose(1, 2) / math.sqrt(self.hidden_size)
        weights = torch.softmax(scores, dim=-1)
        return (weights @ v).squeeze(), weights.squeeze()
