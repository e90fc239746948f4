"""The student gets B's dtype and device for free with torch.zeros_like(base.weight[:, :rank]): that has shape
(out_features, rank) only while rank <= in_features; for nn.Linear(2, 5) with rank 4 B comes out (5, 2) and the
forward raises a shape error.

question: lora_tests
replaces: lora
hunt: 2026-12-c
stated: "rank is an int >= 1"; "B: a trainable parameter of shape (out_features, rank)"
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        self.lora_A = nn.Parameter(base.weight.new_empty(rank, base.in_features))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros_like(base.weight[:, :rank]))   # (out, rank), W's dtype/device
        self.scaling = alpha / rank
