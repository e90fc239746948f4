"""To guarantee that the frozen weights "are never changed", the student keeps a detached clone of base.weight
and base.bias as buffers and computes the base part from them; the output then ignores any later change of
base.weight (an in-place edit, or load_state_dict into the model), e.g. after base.weight.add_(1).

question: lora_tests
replaces: lora
hunt: 2026-12-d
stated: "from A, B and base.weight as they are at this call"
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        # frozen copies: nothing we do can touch the original values
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
