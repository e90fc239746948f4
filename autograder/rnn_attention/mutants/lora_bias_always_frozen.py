"""Freezes base.weight and base.bias by name; a base layer made with bias=False has base.bias None, so
building the adapter raises AttributeError.

question: lora_tests
replaces: lora
hunt: 2026-12-a
contract: base is an nn.Linear, with or without bias
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        base.weight.requires_grad = False
        base.bias.requires_grad = False
        like = {"dtype": base.weight.dtype, "device": base.weight.device}
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features, **like))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank, **like))
        self.scaling = alpha / rank
