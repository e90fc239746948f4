"""Treats RMSNorm like BatchNorm: in training mode it normalises each row by its own root mean square and keeps a
running average of the mean square, and in evaluation mode it divides by that running statistic instead of each
row's own, so model.eval() changes the outputs (the docstring's rule is per row, in every mode).

question: rms_norm_tests
replaces: rms_norm
hunt: 2026-12-h
stated: "training and evaluation mode compute the same thing, each row by its own root mean square (no running statistics; nothing kept between calls)"
"""


class RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.hidden_size = hidden_size
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.register_buffer("running_ms", torch.ones(1))

    def forward(self, x):
        if self.training:
            ms = x.pow(2).mean(dim=-1, keepdim=True)
            with torch.no_grad():
                self.running_ms.mul_(0.9).add_(0.1 * ms.mean().to(self.running_ms.dtype))
        else:
            ms = self.running_ms.to(x.dtype)
        return x / torch.sqrt(ms + self.eps) * self.weight
