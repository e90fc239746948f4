"""Initialises B like A, with nn.Linear's random rule, instead of with zeros, so the adapted layer's output
differs from the pretrained layer's before any training.

question: lora_tests
replaces: lora
contract: B starts at zero, so the output equals base(x) at initialisation
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
        self.lora_B = nn.Parameter(torch.empty(base.out_features, rank, **like))
        nn.init.kaiming_uniform_(self.lora_B, a=math.sqrt(5))
        self.scaling = alpha / rank
