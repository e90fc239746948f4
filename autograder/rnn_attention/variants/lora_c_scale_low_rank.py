"""Correct answer that applies the scaling in the rank-sized middle (F.linear(x, A) * s, then F.linear(., B)) and
computes the base layer with F.linear on base.weight and base.bias; scaling is recomputed from alpha and rank at
every call.

question: lora_tests
replaces: lora
hunt: 2026-12-c
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        base.requires_grad_(False)
        self.base = base
        self.alpha, self.rank = alpha, rank
        w = base.weight
        A = torch.empty(rank, w.shape[1], dtype=w.dtype, device=w.device)
        nn.init.kaiming_uniform_(A, a=math.sqrt(5))
        self.lora_A = nn.Parameter(A)
        self.lora_B = nn.Parameter(torch.zeros(w.shape[0], rank, dtype=w.dtype, device=w.device))

    def forward(self, x):
        middle = F.linear(x, self.lora_A) * (self.alpha / self.rank)      # (..., rank)
        return F.linear(x, self.base.weight, self.base.bias) + F.linear(middle, self.lora_B)
