"""Makes eps a one-element tensor with torch.tensor([self.eps]), on the CPU whatever x's device.

question: rms_norm_tests
replaces: rms_norm
contract: on x's device
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        eps = torch.tensor([self.eps])
        rms = torch.sqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)
        return x / rms * self.weight
