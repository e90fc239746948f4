"""Correct answer that merges the update into one new weight at every call and applies it with F.linear
(W + s B A, never stored, never written into base.weight); freezing uses base.requires_grad_(False) and A, B are
made with base.weight.new_empty / new_zeros.

question: lora_tests
replaces: lora
hunt: 2026-12-c
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.lora_A = nn.Parameter(base.weight.new_empty(rank, base.in_features))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(base.weight.new_zeros(base.out_features, rank))
        self.scaling = alpha / rank

    def forward(self, x):
        weight = torch.addmm(self.base.weight, self.lora_B, self.lora_A, alpha=self.scaling)   # W + s B A, new
        return F.linear(x, weight, self.base.bias)
