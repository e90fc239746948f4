"""Correct: flattens the leading axes with reshape, computes base and update with torch.addmm / mm on the
(N, in) matrix, and restores the shape with explicit sizes (so an empty batch and a single vector work).

question: lora_tests
replaces: lora
hunt: 2026-12-d
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        like = {"dtype": base.weight.dtype, "device": base.weight.device}
        A = torch.empty(rank, base.in_features, **like)
        nn.init.kaiming_uniform_(A, a=math.sqrt(5))
        self.lora_A = nn.Parameter(A)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank, **like))
        self.scaling = alpha / rank

    def forward(self, x):
        flat = x.reshape(-1, self.base.in_features)                         # (N, in)
        if self.base.bias is None:
            out = flat @ self.base.weight.T
        else:
            out = torch.addmm(self.base.bias, flat, self.base.weight.T)     # (N, out)
        out = torch.addmm(out, flat.mm(self.lora_A.T), self.lora_B.T, alpha=self.scaling)
        return out.reshape(*x.shape[:-1], self.base.out_features)
