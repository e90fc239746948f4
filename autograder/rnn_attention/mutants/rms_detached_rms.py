"""Detaches the root mean square, treating the normaliser as a constant, so the gradient of x misses
the part that flows through it.

question: rms_norm_tests
replaces: rms_norm
contract: gradients reach x and weight
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps).detach()
        return x / rms * self.weight
