"""Writes the default 1e-6 into forward instead of reading self.eps, so the eps given to __init__ is
ignored.

question: rms_norm_tests
replaces: rms_norm
contract: the eps given to __init__
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + 1e-6)
        return x / rms * self.weight
