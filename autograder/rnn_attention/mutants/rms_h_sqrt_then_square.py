"""Computes the row's root mean square first, as the paper defines it (rms = sqrt(mean(x^2))), then adds eps to its
square: forward is exactly right, but the gradient of sqrt at 0 is infinite, so a row of zeros gets NaN
gradients (0 * inf) where the reference's gradient is weight / sqrt(eps).

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-h
stated: "they are the formula's own, at a row of zeros too (there the gradient reaching x is the upstream gradient times weight / sqrt(eps): neither NaN nor 0)"
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True))
        return x / torch.sqrt(rms ** 2 + self.eps) * self.weight
