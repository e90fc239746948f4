"""Builds B with torch.zeros_like(base.weight[:, :rank]) to get the base's dtype and device in one go:
the slice has only min(rank, in_features) columns, so with a rank above in_features B has the wrong
shape (out, in) and the adapter's product breaks.

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: B has shape (out_features, rank) for any rank >= 1
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
        self.lora_B = nn.Parameter(torch.zeros_like(base.weight[:, :rank]))
        self.scaling = alpha / rank
