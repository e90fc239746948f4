"""Correct: adds the update in place onto the freshly computed base output (out.add_(update, alpha=scaling)),
which autograd allows because linear's backward does not need its output; the low-rank product B A is formed first.

question: lora_tests
replaces: lora
hunt: 2026-12-d
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        base.requires_grad_(False)
        self.base = base
        w = base.weight
        self.lora_A = nn.Parameter(torch.empty((rank, w.shape[1]), dtype=w.dtype, device=w.device))
        torch.nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros((w.shape[0], rank), dtype=w.dtype, device=w.device))
        self.scaling = alpha / rank

    def forward(self, x):
        out = self.base(x)
        delta = self.lora_B @ self.lora_A                                    # (out, in), new every call
        return out.add_(torch.matmul(x, delta.T), alpha=self.scaling)
