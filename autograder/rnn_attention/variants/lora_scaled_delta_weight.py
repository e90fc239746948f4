"""Adds a scaled delta weight (alpha / rank) * B A, shape (out, in), to base(x) through x @ delta^T, the
merged-update form of many tutorials, with B created by torch.zeros_like on a slice of the base weight.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for p in self.base.parameters():
            p.requires_grad_(False)
        out_features, in_features = base.weight.shape
        self.lora_A = nn.Parameter(base.weight.new_empty(rank, in_features))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(base.weight.new_zeros(out_features, rank))
        self.scaling = float(alpha) / rank

    def forward(self, x):
        delta = self.scaling * (self.lora_B @ self.lora_A)
        return self.base(x) + x @ delta.T
