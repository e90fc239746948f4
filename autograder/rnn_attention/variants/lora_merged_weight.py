"""Merges the update into one weight, W + (alpha / rank) B A, and applies it with a single F.linear, as a
deployed LoRA model does after training (the gradients of A and B are the same).

question: lora_tests
replaces: lora
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        weight = self.base.weight + self.scaling * (self.lora_B @ self.lora_A)   # (out, in)
        return F.linear(x, weight, self.base.bias)
