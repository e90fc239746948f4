"""Subtracts each row's mean first, as LayerNorm does, then divides by the root mean square of what is
left.

question: rms_norm_tests
replaces: rms_norm
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        x = x - x.mean(dim=-1, keepdim=True)
        rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return x / rms * self.weight
