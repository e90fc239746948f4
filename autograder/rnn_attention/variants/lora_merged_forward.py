"""Merges the adapter into one weight on every call, W + (alpha / rank) B A, and applies it with
F.linear and the base's bias (None when the base has none), keeping the graph to A and B.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        weight = self.base.weight + self.scaling * (self.lora_B @ self.lora_A)
        return F.linear(x, weight, self.base.bias)
