"""Takes the mean of the squares over the whole tensor (x.pow(2).mean()) instead of over the last axis,
so one normaliser serves every row.

question: rms_norm_tests
replaces: rms_norm
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        rms = torch.sqrt(x.pow(2).mean() + self.eps)
        return x / rms * self.weight
