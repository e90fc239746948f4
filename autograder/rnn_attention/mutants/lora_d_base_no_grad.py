"""The student runs the frozen base layer under torch.no_grad() ("it has no trainable weights, so no graph is
needed"), which also cuts the gradient flowing back to x through base.weight: x.grad misses the W^T term, and in
add_lora the adapters of lower layers get wrong gradients.

question: lora_tests
replaces: lora
hunt: 2026-12-d
stated: "base(x) + (alpha / rank) * (x @ A^T) @ B^T, in training and evaluation mode alike (gradients too ...)"
"""


class LoRALinear(nn.Module):

    def forward(self, x):
        with torch.no_grad():   # the base layer is frozen: save memory, it needs no graph
            frozen = self.base(x)
        return frozen + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
