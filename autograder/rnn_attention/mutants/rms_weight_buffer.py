"""Registers the weight as a buffer of ones instead of a parameter, so it is never trained.

question: rms_norm_tests
replaces: rms_norm
contract: one parameter, weight
"""


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.hidden_size = hidden_size
        self.eps = eps
        self.register_buffer("weight", torch.ones(hidden_size))
