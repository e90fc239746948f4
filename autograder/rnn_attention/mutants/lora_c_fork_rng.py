"""The student draws A inside torch.random.fork_rng() so as "not to disturb the global random stream": the draw comes
from torch's state but never advances it, so two adapters built with no other draw in between get the same A,
e.g. LoRALinear(base, 3, 6.0) twice on one base layer, or the query and value adapters add_lora builds back to back.

question: lora_tests
replaces: lora
hunt: 2026-12-c
stated: "drawn from torch's random state (do not seed here: each adapter gets its own draw)"; "The checks test only that A is random (a new draw each time, not zero)"
"""


class LoRALinear(nn.Module):
    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        for parameter in base.parameters():
            parameter.requires_grad = False
        like = {"dtype": base.weight.dtype, "device": base.weight.device}
        self.lora_A = nn.Parameter(torch.empty(rank, base.in_features, **like))
        with torch.random.fork_rng():   # leave the caller's random stream as it was
            nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank, **like))
        self.scaling = alpha / rank
