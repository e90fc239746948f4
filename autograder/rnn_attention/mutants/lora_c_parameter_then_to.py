"""The student wraps a default tensor in nn.Parameter and then calls .to(device, dtype) on the Parameter: when
anything changes (a float64 or CUDA base) .to returns a plain tensor, so A and B are not registered at all, e.g.
LoRALinear(nn.Linear(7, 5, dtype=torch.float64), 3, 6.0) has no trainable parameters (the visible meta check
passes vacuously because it only loops over the parameters that exist).

question: lora_tests
replaces: lora
hunt: 2026-12-c
stated: "A and B have base.weight's dtype and device. Name them lora_A and lora_B (as nn.Parameter) ... the tests find A and B by shape among the trainable parameters"
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        device, dtype = base.weight.device, base.weight.dtype
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features)).to(device, dtype)
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank)).to(device, dtype)
        self.scaling = alpha / rank
