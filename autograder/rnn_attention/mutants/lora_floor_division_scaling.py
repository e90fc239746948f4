"""Computes the scaling with floor division, alpha // rank, as if alpha and rank were always whole
numbers that divide evenly: alpha=16, rank=8 gives 2 as it should, but alpha=2.5, rank=2 gives 1.0
instead of 1.25 and alpha=16, rank=6 gives 2.0 instead of 2.67.

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: alpha is a positive number, not necessarily whole (2.5 is fine); the update is scaled by alpha / rank
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
