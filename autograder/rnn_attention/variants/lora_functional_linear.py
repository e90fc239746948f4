"""Uses F.linear three times (base weight and bias, then A, then B) and folds the scaling into x before
the adapter path instead of scaling the update afterwards.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        base_out = F.linear(x, self.base.weight, self.base.bias)
        return base_out + F.linear(F.linear(self.scaling * x, self.lora_A), self.lora_B)
