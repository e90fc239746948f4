"""Leaves eps out of the formula, so a row of zeros comes out as 0/0 (NaN).

question: rms_norm_tests
replaces: rms_norm
contract: eps inside the square root keeps a row of zeros finite
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True))
        return x / rms * self.weight
