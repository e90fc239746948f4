"""The student imitates peft's merge/unmerge: the first evaluation-mode call adds the update into base.weight and
later eval calls use the merged layer, and train() restores a saved copy. Between lora.eval(); lora(x) and the next
train() base.weight holds W + s B A, and a change to B made in eval mode is ignored on the next eval call.

question: lora_tests
replaces: lora
hunt: 2026-12-c
adds: LoRALinear.train
stated: "their values are never changed, in forward neither"; "merging ... is fine too, if it is a new tensor made at every call (not kept from an earlier call, never written into base.weight)"
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
        self._merged = False
        self._saved = None

    def forward(self, x):
        if not self.training and not self._merged:   # inference: fold the update into the base layer once
            with torch.no_grad():
                self._saved = self.base.weight.clone()
                self.base.weight += self.scaling * (self.lora_B @ self.lora_A)
            self._merged = True
        if self._merged:
            return self.base(x)
        return self.base(x) + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)

    def train(self, mode=True):
        if mode and self._merged:   # back to training: put the original weight back
            with torch.no_grad():
                self.base.weight.copy_(self._saved)
            self._merged = False
        return super().train(mode)
