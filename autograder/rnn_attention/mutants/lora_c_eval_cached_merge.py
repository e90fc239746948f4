"""In evaluation mode the student merges B A into one weight the first time and reuses it on later calls (only a
training-mode call clears it): after lora.eval(); lora(x), changing B (loading trained weights, an optimiser step
done in eval mode) and calling lora(x) again still returns the old update.

question: lora_tests
replaces: lora
hunt: 2026-12-c
stated: "from A, B and base.weight as they are at this call; merging the two into one weight is fine too, if it is a new tensor made at every call (not kept from an earlier call, ...)"
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        base.requires_grad_(False)
        like = {"dtype": base.weight.dtype, "device": base.weight.device}
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features, **like))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank, **like))
        self.scaling = alpha / rank
        self._merged = None

    def forward(self, x):
        if self.training:
            self._merged = None   # weights may change while training: drop the inference cache
            return self.base(x) + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
        if self._merged is None:   # inference: fold the update into one weight, once
            self._merged = self.base.weight + self.scaling * (self.lora_B @ self.lora_A)
        return F.linear(x, self._merged, self.base.bias)
