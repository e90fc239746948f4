"""The student runs the frozen base layer under torch.no_grad() ("it is frozen, so no need to track it"): the values
are right, but no gradient flows back to x through base(x), so with x requiring grad, x.grad after
out.sum().backward() is 0 at initialisation instead of W summed over outputs; in a BERT with add_lora the adapters
of earlier layers get wrong gradients.

question: lora_tests
replaces: lora
hunt: 2026-12-c
stated: "forward(x): ... base(x) + (alpha / rank) * (x @ A^T) @ B^T"; "freeze it: base.weight (and base.bias, if any) get requires_grad = False"
"""


class LoRALinear(nn.Module):

    def forward(self, x):
        with torch.no_grad():   # the base layer is frozen: nothing to track there
            frozen = self.base(x)
        return frozen + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
