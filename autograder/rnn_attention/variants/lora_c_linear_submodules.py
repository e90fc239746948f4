"""Correct answer with A and B as bias-free nn.Linear layers: A's own reset_parameters is exactly
kaiming_uniform_(a=sqrt(5)), and B is built with torch.nn.utils.skip_init (no random draw) then zeroed, so the
random stream advances exactly as in the reference; forward is base(x) + s * lora_B(lora_A(x)).

question: lora_tests
replaces: lora
hunt: 2026-12-c
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad_(False)
        like = {"dtype": base.weight.dtype, "device": base.weight.device}
        self.lora_A = nn.Linear(base.in_features, rank, bias=False, **like)           # weight (rank, in)
        self.lora_B = torch.nn.utils.skip_init(nn.Linear, rank, base.out_features, bias=False, **like)
        nn.init.zeros_(self.lora_B.weight)                                              # weight (out, rank)
        self.scaling = alpha / rank

    def forward(self, x):
        return self.base(x) + self.lora_B(self.lora_A(x)) * self.scaling
