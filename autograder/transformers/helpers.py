"""Shared pieces of the hidden tests: padding masks and the reference implementation (stand_ins.py)."""

import functools
import types

import torch

from assignments.grading.testkit.stand_ins import stand_in_source


def padding_mask(batch, seq, generator):
    """(batch, seq) bool, True = padding; every row keeps at least two real tokens."""
    lengths = torch.randint(2, seq + 1, (batch,), generator=generator)
    return torch.arange(seq)[None, :] >= lengths[:, None]


@functools.lru_cache(maxsize=1)
def reference():
    """stand_ins.py loaded as a module: the reference definitions, used as oracles in this process."""
    module = types.ModuleType("transformers_reference")
    exec(compile(stand_in_source("transformers"), "<stand-ins>", "exec"), module.__dict__)
    return module
