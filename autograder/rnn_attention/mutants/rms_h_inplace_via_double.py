"""Computes in float64 for accuracy ("wider is allowed") and, when autograd does not need the operands (no input
requires grad), divides the float64 copy in place to save memory: x.double() only copies when x is not float64
already, so for a float64 input the in-place division writes into the caller's x.

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-h
stated: "Leave x unmodified in every mode and dtype, with gradients on or off"
"""


class RMSNorm(nn.Module):
    def forward(self, x):
        xd = x.double()
        rms = torch.sqrt(xd.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        if xd.requires_grad:
            xd = xd / rms
        else:
            xd.div_(rms)
        return (xd * self.weight.double()).to(x.dtype)
