"""Creates A and B with torch's default dtype (float32) whatever the wrapped layer's dtype, so a float64 layer
fails to multiply its input with them.

question: lora_tests
replaces: lora
contract: A and B have the base layer's dtype and device
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))
        self.scaling = alpha / rank
