"""Flattens the leading axes with reshape(-1, hidden), works in float64 whatever the input dtype (wider is allowed),
and casts back to x's dtype and shape at the end.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-h
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        flat = x.reshape(-1, x.shape[-1]).double()
        ms = flat.square().sum(dim=1, keepdim=True) / flat.shape[1]
        out = flat / (ms + self.eps).sqrt() * self.weight.double()
        return out.to(x.dtype).reshape(x.shape)
