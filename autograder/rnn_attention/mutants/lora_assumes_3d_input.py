"""Unpacks x as (batch, seq, in_features), flattens to a matrix and reshapes back, as for BERT's hidden
states; an input with one leading axis (batch, in_features) or with three raises instead of working.

question: lora_tests
replaces: lora
hunt: 2026-12-a
contract: x (..., in_features) with any number of leading axes
"""


class LoRALinear(nn.Module):
    def forward(self, x):
        batch, seq, _ = x.shape
        flat = x.reshape(batch * seq, -1)
        update = (flat @ self.lora_A.T) @ self.lora_B.T
        return self.base(x) + self.scaling * update.reshape(batch, seq, -1)
