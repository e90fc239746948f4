"""Gives eps LayerNorm's default, 1e-5, instead of the skeleton's 1e-6.

question: rms_norm_tests
replaces: rms_norm
contract: eps=1e-6 by default
"""


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-5):
        super().__init__()
        self.hidden_size = hidden_size
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size))
