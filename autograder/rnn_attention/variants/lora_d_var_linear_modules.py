"""Correct: A and B are bias-free nn.Linear layers created with base's dtype and device (nn.Linear's own init
is kaiming_uniform_(a=sqrt(5)) on A; B's weight is then zeroed), forward composes them with F-style modules.

question: lora_tests
replaces: lora
hunt: 2026-12-d
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        if self.base.bias is not None:
            self.base.bias.requires_grad_(False)
        factory = dict(bias=False, dtype=base.weight.dtype, device=base.weight.device)
        self.lora_A = nn.Linear(base.in_features, rank, **factory)    # weight (rank, in)
        self.lora_B = nn.Linear(rank, base.out_features, **factory)   # weight (out, rank)
        nn.init.zeros_(self.lora_B.weight)
        self.scaling = float(alpha) / float(rank)

    def forward(self, x):
        return self.base(x) + self.lora_B(self.lora_A(x)) * self.scaling
