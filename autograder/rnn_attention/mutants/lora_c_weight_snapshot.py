"""The student "freezes" the base layer by keeping a detached clone of its weight and bias as buffers and computes
with the clone: the result is right until base.weight changes, e.g. after
lora.base.weight.copy_(torch.randn(5, 7)) (or loading a checkpoint into base) the output still uses the old weight.

question: lora_tests
replaces: lora
hunt: 2026-12-c
stated: "from A, B and base.weight as they are at this call"; "keep the layer itself (not a copy) as self.base"
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        self.register_buffer("frozen_weight", base.weight.detach().clone())
        self.register_buffer("frozen_bias", None if base.bias is None else base.bias.detach().clone())
        like = {"dtype": base.weight.dtype, "device": base.weight.device}
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features, **like))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank, **like))
        self.scaling = alpha / rank

    def forward(self, x):
        frozen = F.linear(x, self.frozen_weight, self.frozen_bias)
        return frozen + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
