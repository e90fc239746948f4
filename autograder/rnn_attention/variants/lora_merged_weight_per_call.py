"""Merges the update into a new weight at every call, W + scaling * B A, and runs one F.linear with the
base's bias (None when the base has none); base.weight itself is never written.

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        weight = self.base.weight + self.scaling * (self.lora_B @ self.lora_A)
        return F.linear(x, weight, self.base.bias)
