"""Computes the low-rank update with one einsum over A and B and scales it by alpha / rank at each call
(alpha and rank stored), instead of two matmuls with a stored scaling.

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        base.weight.requires_grad_(False)
        if base.bias is not None:
            base.bias.requires_grad_(False)
        self.rank, self.alpha = rank, alpha
        self.lora_A = nn.Parameter(base.weight.new_empty(rank, base.in_features))
        self.lora_B = nn.Parameter(base.weight.new_zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))

    def forward(self, x):
        update = torch.einsum("...i,ri,or->...o", x, self.lora_A, self.lora_B)
        return self.base(x) + update * (self.alpha / self.rank)
