"""Correct answer that flattens the leading axes to one (reshape, so any strides and empty inputs work), adds the
update with torch.addmm(base_out, x A^T, B^T, alpha=s), and restores the leading axes with explicit sizes.

question: lora_tests
replaces: lora
hunt: 2026-12-c
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in self.base.parameters():
            parameter.requires_grad = False
        self.register_parameter("lora_A", nn.Parameter(torch.empty(
            rank, base.in_features, dtype=base.weight.dtype, device=base.weight.device)))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.register_parameter("lora_B", nn.Parameter(torch.zeros(
            base.out_features, rank, dtype=base.weight.dtype, device=base.weight.device)))
        self.rank, self.alpha = rank, alpha

    def forward(self, x):
        lead = x.shape[:-1]
        flat = x.reshape(-1, self.base.in_features)                          # (N, in)
        out = torch.addmm(self.base(flat), flat @ self.lora_A.T, self.lora_B.T, alpha=self.alpha / self.rank)
        return out.reshape(*lead, self.base.out_features)
