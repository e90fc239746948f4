"""Stores alpha with int(alpha), treating it like the integer rank, so a non-integer alpha such as 2.5
loses its fraction before the scaling alpha / rank is computed.

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
        self.rank, self.alpha = int(rank), int(alpha)
        self.scaling = self.alpha / self.rank
