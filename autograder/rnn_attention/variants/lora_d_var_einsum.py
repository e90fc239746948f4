"""Correct: A is drawn with uniform_(-1/sqrt(in), 1/sqrt(in)) (the same distribution kaiming_uniform_ with
a=sqrt(5) gives), B with torch.zeros(...).to(base.weight); forward uses einsum over '...' leading axes and scales A.

question: lora_tests
replaces: lora
hunt: 2026-12-d
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in self.base.parameters():
            parameter.requires_grad_(False)
        out_features, in_features = base.weight.shape
        bound = 1.0 / math.sqrt(in_features)
        self.lora_A = nn.Parameter(torch.empty(rank, in_features, dtype=base.weight.dtype,
                                               device=base.weight.device).uniform_(-bound, bound))
        self.lora_B = nn.Parameter(torch.zeros(out_features, rank).to(base.weight))
        self.scaling = alpha / rank

    def forward(self, x):
        hidden = torch.einsum("...i,ri->...r", x, self.lora_A * self.scaling)
        return self.base(x) + torch.einsum("...r,or->...o", hidden, self.lora_B)
