"""Freezes the base by copying its weight into a buffer at construction (register_buffer of
base.weight.detach().clone()) and uses that copy in forward: if base.weight is later changed (a
pretrained state dict loaded into the model, weights copied in), the adapter still computes with the old
values.

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: forward uses base.weight as it is at this call
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        self.register_buffer("frozen_weight", base.weight.detach().clone())
        like = {"dtype": base.weight.dtype, "device": base.weight.device}
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features, **like))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank, **like))
        self.scaling = alpha / rank

    def forward(self, x):
        return F.linear(x, self.frozen_weight, self.base.bias) + \
            self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
