"""Creates A and B on the default device and moves them afterwards with nn.Parameter(...).to(base.weight):
when the base is on another device or dtype (a GPU, float64), .to returns a plain tensor, so A and B are
not registered as parameters (not in parameters(), not trained by the optimiser, not in the state dict).

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: A and B are trainable parameters with base.weight's dtype and device
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features)).to(base.weight)
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank)).to(base.weight)
        self.scaling = alpha / rank
