"""Merges the update into one weight per call, as the skeleton allows, but builds it from .data
("so the frozen weight is not touched by autograd"): the values are right, but A and B are cut out of the
graph and never receive a gradient, so the adapters never train.

question: lora_tests
replaces: lora
hunt: 2026-12-b
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        weight = self.base.weight.data + self.scaling * (self.lora_B.data @ self.lora_A.data)
        return F.linear(x, weight, self.base.bias)
