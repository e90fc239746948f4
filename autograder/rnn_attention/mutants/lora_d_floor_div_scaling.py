"""The student stores the scaling as alpha // rank, treating alpha and rank as the whole numbers of usual LoRA
configs; it agrees whenever rank divides alpha (6/3, 8/4 in the checks) but alpha=2.5, rank=2 gives 1.0
instead of 1.25, and alpha=1, rank=4 gives 0 (the update vanishes).

question: lora_tests
replaces: lora
hunt: 2026-12-d
stated: "alpha a positive number (not necessarily whole: 2.5 is fine)" ; "base(x) + (alpha / rank) * (x @ A^T) @ B^T"
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
