"""Checks shared by several rnn_attention questions: loading the grader's weights into a student's module,
then, for the three attention questions, shapes first and normalisation over the keys."""

import torch

from assignments.grading.testkit import expect, expect_shape

# The grader's weights go into the student's parameters by name. The skeletons fix the layers and nothing
# else, so a module may also keep buffers of its own (nanoGPT's causal mask registered once as `bias`, a
# stored 1/sqrt(d)): those are left as the module made them. About parameters the load is strict: every
# tensor the grader sends must find a parameter (or buffer) of that name and shape, and the module may have
# no parameter the grader does not send, which would keep its random initial value. The kernel only
# reports the mismatch; the grader words the message (`expect_loaded`), since text the kernel raises is
# cut to a few dozen characters.
LOAD_STATE = """
def load_grader_state(module, state):
    parameters = dict(module.named_parameters())
    known = dict(module.state_dict())
    known.update(parameters)
    report = {
        "absent": [name for name in state if name not in known],
        "misshaped": [name for name in state if name in known and tuple(known[name].shape) != tuple(state[name].shape)],
        "unfilled": [name for name in parameters if name not in state],
    }
    if not any(report.values()):
        module.load_state_dict(state, strict=False)
    return report
"""


def expect_loaded(report, state, module):
    """Fail with the grader's own words when ``load_grader_state`` could not load ``state`` into ``module``
    (a class name): the grader's names (those of ``state``) that did not fit, and a count of the module's
    own; never a name the kernel chose (issue #43)."""
    expect(isinstance(report, dict), f"the grader could not read which of its weights {module} accepted")
    absent = [name for name in state if name in set(report.get("absent") or ())]
    misshaped = [name for name in state if name in set(report.get("misshaped") or ())]
    unfilled = list(report.get("unfilled") or ())
    expect(
        not absent,
        f"{module} has no parameter named {', '.join(absent[:4])}: keep the layer names and the bias the "
        f"skeleton gives, since the tests load their weights by name",
    )
    expect(
        not misshaped,
        f"the shape of {', '.join(misshaped[:4])} in {module} differs from the skeleton's layer (size each "
        f"layer from the arguments or the config, never from the numbers of an example)",
    )
    expect(
        not unfilled,
        f"{module} has {len(unfilled)} parameter(s) the skeleton does not list; they would keep random values "
        f"the tests cannot set. Buffers (register_buffer) are fine",
    )
    expect(
        not any(report.get(key) for key in ("absent", "misshaped")),
        f"the grader's weights do not fit {module}'s layers: keep the names and shapes the skeleton gives",
    )


# The additive skeleton allows its single bias b_k on Wq instead of Wk (Wq q + b + Wk k gives the same
# scores), so the grader's Wk.bias moves there. A bias the formula does not have (on both projections, or
# on v, which shifts every score of a row alike) is loaded as zeros.
RUN_ATTENTION = """
attention = {cls}(hidden_size)
load = None
if state is not None:
    own, state = dict(attention.named_parameters()), dict(state)
    if "Wk.bias" in state and "Wk.bias" not in own and "Wq.bias" in own:
        state["Wq.bias"] = state.pop("Wk.bias")
    for name in own:
        if name.endswith(".bias") and name not in state:
            state[name] = torch.zeros_like(own[name])
    load = load_grader_state(attention, state)
context, weights = attention(queries, keys, values)
result = {{"context": context, "weights": weights, "load": load}}
"""


def run_attention(student, cls, queries, keys, values, state=None):
    out = student.run(
        LOAD_STATE + RUN_ATTENTION.format(cls=cls),
        hidden_size=queries.shape[-1],
        state=state,
        queries=queries,
        keys=keys,
        values=values,
    )
    if state is not None:
        expect(isinstance(out, dict), f"the grader could not read what {cls} returned")
        expect_loaded(out.get("load"), state, cls)
    return out


def expect_normalised(out, batch, k, seq, hidden):
    context = expect_shape(out["context"], (batch, k, hidden), "context (batch, k, hidden)")
    weights = expect_shape(out["weights"], (batch, k, seq), "weights (batch, k, seq)")
    expect(
        bool(torch.isfinite(weights).all() and torch.isfinite(context).all()), "weights or context contain NaN or inf"
    )
    expect(float(weights.min()) >= 0, f"attention weights must be non-negative; got {float(weights.min()):.3g}")
    sums = weights.sum(dim=-1)
    worst = (sums - 1).abs().max().item()
    expect(
        worst < 1e-5,
        f"each query's weights must sum to 1 over the keys (last axis); a row sums to "
        f"{sums.flatten()[(sums - 1).abs().flatten().argmax()].item():.4g}",
    )
    return context, weights
