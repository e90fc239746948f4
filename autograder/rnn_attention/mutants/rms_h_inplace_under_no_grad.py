"""Saves memory at inference: when gradients are off (torch.no_grad(), evaluation loops, generation) it
normalises x in place (x.mul_), since no graph needs the original; the values returned are right, but the
caller's x is overwritten, which the docstring forbids in every mode.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-h
stated: "Leave x unmodified in every mode and dtype, with gradients on or off (nothing in place on it, under torch.no_grad() too)"
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        inv = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        if not torch.is_grad_enabled():
            return x.mul_(inv).mul_(self.weight)
        return x * inv * self.weight
