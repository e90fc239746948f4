"""Makes A and B bias-free nn.Linear layers (lora_A: in -> rank, lora_B: rank -> out) on the base's dtype
and device; nn.Linear already initialises lora_A.weight with kaiming_uniform_(a=sqrt(5)), lora_B.weight is
zeroed, and forward applies them as layers: base(x) + scaling * lora_B(lora_A(x)).

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        base.requires_grad_(False)
        factory = {"dtype": base.weight.dtype, "device": base.weight.device}
        self.lora_A = nn.Linear(base.in_features, rank, bias=False, **factory)
        self.lora_B = nn.Linear(rank, base.out_features, bias=False, **factory)
        nn.init.zeros_(self.lora_B.weight)
        self.scaling = alpha / rank

    def forward(self, x):
        return self.base(x) + self.scaling * self.lora_B(self.lora_A(x))
