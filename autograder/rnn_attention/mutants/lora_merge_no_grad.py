"""Merges the adapter into one weight inside torch.no_grad(), to keep the frozen base weight out of the
graph; the merged weight is then a constant, so A and B never receive a gradient and training changes
nothing but the classifier.

question: lora_tests
replaces: lora
hunt: 2026-12-a
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        with torch.no_grad():
            weight = self.base.weight + self.scaling * (self.lora_B @ self.lora_A)
        return F.linear(x, weight, self.base.bias)
