"""Sums the squares with torch.einsum and divides by hidden_size.

question: rms_norm_tests
replaces: rms_norm
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        mean_square = torch.einsum("...h,...h->...", x, x).unsqueeze(-1) / self.hidden_size
        return self.weight * (x / (mean_square + self.eps).sqrt())
