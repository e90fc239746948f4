"""Registers A and B as bias-free nn.Linear layers (weights of shapes (rank, in) and (out, rank)), A left with
nn.Linear's own initialisation, and stores alpha and rank instead of their ratio.

question: lora_tests
replaces: lora
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        base.requires_grad_(False)
        self.base, self.rank, self.alpha = base, rank, alpha
        self.down = nn.Linear(base.in_features, rank, bias=False, dtype=base.weight.dtype, device=base.weight.device)
        self.up = nn.Linear(rank, base.out_features, bias=False, dtype=base.weight.dtype, device=base.weight.device)
        nn.init.zeros_(self.up.weight)

    def forward(self, x):
        return self.base(x) + self.up(self.down(x)) * (self.alpha / self.rank)
