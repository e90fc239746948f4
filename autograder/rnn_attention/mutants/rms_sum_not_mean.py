"""Divides by the root of the sum of squares over the last axis instead of their mean (the vector's
length), so every output is sqrt(hidden) times too small.

question: rms_norm_tests
replaces: rms_norm
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        rms = torch.sqrt(x.pow(2).sum(dim=-1, keepdim=True) + self.eps)
        return x / rms * self.weight
