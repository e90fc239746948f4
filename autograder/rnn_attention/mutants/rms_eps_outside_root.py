"""Adds eps after the square root, x / (sqrt(mean(x^2)) + eps), as some write a norm's guard.

question: rms_norm_tests
replaces: rms_norm
contract: eps inside the square root
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True)) + self.eps
        return x / rms * self.weight
