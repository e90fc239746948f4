"""Multiplies by torch.rsqrt of the mean square plus eps instead of dividing by torch.sqrt, and squares with
x * x (the form of many LLaMA ports).

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-h
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + self.eps) * self.weight
