"""In evaluation mode the student merges B A into one weight for speed, but computes it only once and keeps
it on the module (self._merged) for every later evaluation-mode call: after A or B change (another
training step, a state dict loaded) the evaluation output still uses the stale merged weight.

question: lora_tests
replaces: lora
hunt: 2026-12-b
stated: forward uses A, B and base.weight as they are at this call; a merged weight must be a new tensor made at every call
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        if self.training:
            self._merged = None
            return self.base(x) + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
        if getattr(self, "_merged", None) is None:
            self._merged = self.base.weight + self.scaling * (self.lora_B @ self.lora_A)
        return F.linear(x, self._merged, self.base.bias)
