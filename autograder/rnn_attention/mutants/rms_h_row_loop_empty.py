"""Normalises row by row in a Python loop over x.reshape(-1, hidden) and stacks the rows back: the values are
right, but an empty batch (no rows, x of shape (0, hidden) or (2, 0, hidden)) makes torch.stack([]) raise
instead of returning an empty tensor of x's shape.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-h
stated: "leading axes of length 0 (no rows: an empty result)"
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        rows = []
        for row in x.reshape(-1, x.shape[-1]):
            rows.append(row / torch.sqrt(row.pow(2).mean() + self.eps) * self.weight)
        return torch.stack(rows).reshape(x.shape)
