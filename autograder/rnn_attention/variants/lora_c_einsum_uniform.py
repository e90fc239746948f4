"""Correct answer that draws A with uniform_(-1/sqrt(in), 1/sqrt(in)) directly (the bound kaiming_uniform_ with
a=sqrt(5) works out to) and computes both the base layer and the update with torch.einsum over '...'.

question: lora_tests
replaces: lora
hunt: 2026-12-c
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        base.weight.requires_grad = False
        if base.bias is not None:
            base.bias.requires_grad = False
        self.lora_A = nn.Parameter(torch.empty((rank, base.in_features), dtype=base.weight.dtype,
                                               device=base.weight.device))
        with torch.no_grad():
            bound = 1.0 / math.sqrt(base.in_features)
            self.lora_A.uniform_(-bound, bound)
        self.lora_B = nn.Parameter(torch.zeros((base.out_features, rank), dtype=base.weight.dtype,
                                               device=base.weight.device))
        self.scaling = alpha / rank

    def forward(self, x):
        out = torch.einsum("...i,oi->...o", x, self.base.weight)
        if self.base.bias is not None:
            out = out + self.base.bias
        low = torch.einsum("...i,ri->...r", x, self.lora_A)                    # (..., rank)
        return out + self.scaling * torch.einsum("...r,or->...o", low, self.lora_B)
