"""The student merges the update into a fresh weight each call and writes the affine map by hand,
x @ W^T + base.bias; on a base layer built with bias=False, base.bias is None and forward raises TypeError
(the checks only run forward on a layer with a bias).

question: lora_tests
replaces: lora
hunt: 2026-12-d
stated: "base is an nn.Linear(in_features, out_features), with or without bias"
"""


class LoRALinear(nn.Module):

    def forward(self, x):
        weight = self.base.weight + self.scaling * (self.lora_B @ self.lora_A)   # a new (out, in) tensor
        return x @ weight.T + self.base.bias
