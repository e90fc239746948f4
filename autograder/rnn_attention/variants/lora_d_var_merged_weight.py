"""Correct: builds a new merged weight W + (alpha/rank) B A at every call and applies it with F.linear (bias may
be None); A, B made with base.weight.new_empty / new_zeros, base frozen with requires_grad_(False).

question: lora_tests
replaces: lora
hunt: 2026-12-d
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.lora_A = nn.Parameter(base.weight.new_empty(rank, base.in_features))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(base.weight.new_zeros(base.out_features, rank))
        self.alpha, self.rank = alpha, rank

    def forward(self, x):
        weight = torch.addmm(self.base.weight, self.lora_B, self.lora_A, alpha=self.alpha / self.rank)
        return F.linear(x, weight, self.base.bias)
