"""The student writes the base layer out by hand as x @ W^T + b: construction of a bias-free layer works (the
visible check only builds one, on 'meta'), but calling it, e.g. LoRALinear(nn.Linear(7, 5, bias=False), 2, 4.0)
on torch.randn(3, 7), raises a TypeError (tensor + None).

question: lora_tests
replaces: lora
hunt: 2026-12-c
stated: "base is an nn.Linear(in_features, out_features), with or without bias"
"""


class LoRALinear(nn.Module):

    def forward(self, x):
        frozen = x @ self.base.weight.T + self.base.bias
        return frozen + self.scaling * ((x @ self.lora_A.T) @ self.lora_B.T)
