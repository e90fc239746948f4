"""Starts the weight at zeros, as a bias would start, so a fresh RMSNorm outputs zeros.

question: rms_norm_tests
replaces: rms_norm
contract: weight is ones at initialisation
"""


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.hidden_size = hidden_size
        self.eps = eps
        self.weight = nn.Parameter(torch.zeros(hidden_size))
