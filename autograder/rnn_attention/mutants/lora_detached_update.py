"""Computes the update from a detached copy of the input, thinking only A and B need gradients: A and B still
train, but the gradient that reaches the layers below (through x) misses the adapter's part.

question: lora_tests
replaces: lora
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        return self.base(x) + self.scaling * ((x.detach() @ self.lora_A.T) @ self.lora_B.T)
