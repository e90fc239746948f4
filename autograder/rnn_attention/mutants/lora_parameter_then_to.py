"""Wraps A and B in nn.Parameter first and then calls .to(base.weight) (its dtype and device) on the
parameter; when a conversion happens (a float64 or GPU base) .to returns a plain non-leaf tensor, so A and
B are not registered parameters, do not appear in parameters() and an optimiser never updates them.

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
        lora_A = nn.Parameter(torch.empty(rank, base.in_features))
        nn.init.kaiming_uniform_(lora_A, a=math.sqrt(5))
        self.lora_A = lora_A.to(base.weight)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank)).to(base.weight)
        self.scaling = alpha / rank
