"""Freezes the given layer and then keeps a deep copy of it as self.base ("so the original is not
touched"); the adapter no longer wraps the caller's layer: a later change to that layer's weight (loading
a checkpoint into it, tied weights) is not seen, and the copy doubles the memory.

question: lora_tests
replaces: lora
hunt: 2026-12-a
contract: keep the layer as self.base
"""

import copy


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        for parameter in base.parameters():
            parameter.requires_grad = False
        self.base = copy.deepcopy(base)
        like = {"dtype": base.weight.dtype, "device": base.weight.device}
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features, **like))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank, **like))
        self.scaling = alpha / rank
