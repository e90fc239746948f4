"""Computes the scaling with floor division, alpha // rank, as if both hyper-parameters were integers
whose ratio is whole (16 // 8 = 2); with alpha 5 and rank 2 the update is scaled by 2 instead of 2.5, and
with alpha 4 and rank 8 it vanishes.

question: lora_tests
replaces: lora
hunt: 2026-12-a
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
