"""A and B are bias-free nn.Linear layers (lora_A: in -> rank, whose default initialisation is already
kaiming_uniform_ with a=sqrt(5); lora_B: rank -> out, zeroed), created with the base's dtype and device;
the base is frozen with requires_grad_(False) and forward is base(x) + scaling * lora_B(lora_A(x)).

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base.requires_grad_(False)
        like = {"dtype": base.weight.dtype, "device": base.weight.device}
        self.lora_A = nn.Linear(base.in_features, rank, bias=False, **like)
        self.lora_B = nn.Linear(rank, base.out_features, bias=False, **like)
        nn.init.zeros_(self.lora_B.weight)
        self.scaling = alpha / rank

    def forward(self, x):
        return self.base(x) + self.scaling * self.lora_B(self.lora_A(x))
