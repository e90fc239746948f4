"""Takes the sum of squares with torch.einsum('...h,...h->...') and divides by the last axis's length, adds eps
elementwise before the mean (mean(x^2 + eps) = mean(x^2) + eps), and restores the axis with [..., None].

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-h
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        n = x.shape[-1]
        ms = torch.einsum("...h,...h->...", x, x) / n + self.eps
        return x / ms.sqrt()[..., None] * self.weight
