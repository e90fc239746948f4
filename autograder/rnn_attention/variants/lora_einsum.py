"""Computes the low-rank update with one einsum over the leading axes ('...i,ri,or->...o') and keeps
alpha and rank as attributes, computing the scaling in forward.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        base.weight.requires_grad_(False)
        if base.bias is not None:
            base.bias.requires_grad_(False)
        self.rank, self.alpha = rank, alpha
        A = torch.empty(rank, base.in_features, dtype=base.weight.dtype, device=base.weight.device)
        nn.init.kaiming_uniform_(A, a=math.sqrt(5))
        self.lora_A = nn.Parameter(A)
        self.lora_B = nn.Parameter(A.new_zeros(base.out_features, rank))

    def forward(self, x):
        update = torch.einsum("...i,ri,or->...o", x, self.lora_A, self.lora_B)
        return self.base(x) + (self.alpha / self.rank) * update
