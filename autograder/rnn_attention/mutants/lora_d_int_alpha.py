"""The student keeps alpha as an int (LoRA configs write lora_alpha=16) and divides by rank in forward; whole
alphas such as 6.0 and 8.0 pass, but alpha=2.5 is truncated to 2, so with rank 2 the update is scaled by 1.0
instead of 1.25.

question: lora_tests
replaces: lora
hunt: 2026-12-d
stated: "alpha a positive number (not necessarily whole: 2.5 is fine)"
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        self.base.requires_grad_(False)
        self.rank = int(rank)
        self.alpha = int(alpha)
        weight = base.weight
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features, dtype=weight.dtype, device=weight.device))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank, dtype=weight.dtype, device=weight.device))

    def forward(self, x):
        update = (x @ self.lora_A.T) @ self.lora_B.T
        return self.base(x) + (self.alpha / self.rank) * update
