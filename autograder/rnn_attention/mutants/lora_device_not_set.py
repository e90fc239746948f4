"""Creates A and B with dtype=base.weight.dtype but no device, so they always live on the CPU; wrapping a
layer that is on the GPU gives adapters on another device than the base, and forward fails.

question: lora_tests
replaces: lora
hunt: 2026-12-a
contract: A and B have base.weight's dtype and device
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features, dtype=base.weight.dtype))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank, dtype=base.weight.dtype))
        self.scaling = alpha / rank
