"""Puts the score network's one bias vector on the query projection Wq and leaves Wk without one, which
gives the same scores (the two projections are added before tanh).

question: additive_attention_tests
replaces: additive_attention
"""


class AdditiveAttention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.Wq = nn.Linear(hidden_size, hidden_size)
        self.Wk = nn.Linear(hidden_size, hidden_size, bias=False)
        self.v = nn.Linear(hidden_size, 1, bias=False)
