"""Stores the factor 1/sqrt(hidden_size) once, as a registered buffer, and multiplies the scores by it; the
tests load the three layers' weights by name and leave the buffer alone.

question: scaled_dot_attention_tests
replaces: scaled_dot_attention
"""


class ScaledDotAttention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.Wq = nn.Linear(hidden_size, hidden_size)
        self.Wk = nn.Linear(hidden_size, hidden_size)
        self.Wv = nn.Linear(hidden_size, hidden_size)
        self.register_buffer("scale", torch.tensor(hidden_size**-0.5))

    def forward(self, queries, keys, values):
        q, k, v = self.Wq(queries), self.Wk(keys), self.Wv(values)
        weights = torch.softmax(torch.einsum("bkh,bsh->bks", q, k) * self.scale, dim=-1)
        return torch.einsum("bks,bsh->bkh", weights, v), weights
