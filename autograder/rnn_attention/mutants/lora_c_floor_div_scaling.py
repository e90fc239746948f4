"""The scaling is written alpha // rank (floor division, as if alpha and rank were both whole numbers): it agrees
with the reference when rank divides alpha (6/3, 8/4 as in the visible check) but gives 1 instead of 1.25 for
alpha=2.5, rank=2 and kills the update entirely (scaling 0) whenever alpha < rank, e.g. alpha=4, rank=8.

question: lora_tests
replaces: lora
hunt: 2026-12-c
stated: "alpha a positive number (not necessarily whole: 2.5 is fine)"; "base(x) + (alpha / rank) * (x @ A^T) @ B^T"
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        like = {"dtype": base.weight.dtype, "device": base.weight.device}
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features, **like))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank, **like))
        self.scaling = alpha // rank
