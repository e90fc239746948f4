"""The student gets B's dtype and device for free with torch.zeros_like(base.weight[:, :rank]); that slice is
(out, rank) only while rank <= in_features, so nn.Linear(2, 6) with rank 4 gets B of shape (6, 2) and forward
fails (rank larger than the input width is allowed).

question: lora_tests
replaces: lora
hunt: 2026-12-d
stated: "rank is an int >= 1" ; "B: a trainable parameter of shape (out_features, rank), all zeros"
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features, dtype=base.weight.dtype,
                                               device=base.weight.device))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros_like(base.weight[:, :rank]))   # (out, rank), base's dtype/device
        self.scaling = alpha / rank
