"""Like PEFT's merge-for-inference, the student overrides train() so that switching to eval mode computes the
merged weight once (into a separate tensor, base.weight untouched) and eval-mode forward reuses it; after A or B
changes while in eval mode, the output is stale (uses the A, B of the moment eval() was called).

question: lora_tests
replaces: lora
hunt: 2026-12-d
stated: "from A, B and base.weight as they are at this call; merging the two into one weight is fine too, if it is a new tensor made at every call (not kept from an earlier call"
adds: LoRALinear.train
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        like = {"dtype": base.weight.dtype, "device": base.weight.device}
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features, **like))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank, **like))
        self.scaling = alpha / rank
        self.merged_weight = None

    def train(self, mode=True):
        super().train(mode)
        if mode:
            self.merged_weight = None   # training: use the two factors again
        else:
            with torch.no_grad():       # inference: merge once, a single matmul per call
                self.merged_weight = self.base.weight + self.scaling * (self.lora_B @ self.lora_A)
        return self

    def forward(self, x):
        if not self.training and self.merged_weight is not None:
            return F.linear(x, self.merged_weight, self.base.bias)
        return self.base(x) + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
