"""Loops over the rows and, for an empty continuation, appends torch.tensor(0.0, dtype=logits.dtype) with no
device: on the CPU everything agrees, but with logits on a GPU torch.stack meets a CPU tensor among GPU ones and
raises (the 'meta' visible check never reaches the stack, because int() of a meta length already fails with a
message that does not mention the device). A batch whose continuations are all empty (seq 1, say) also
comes back as a constant with no graph, so DPO's backward raises.

question: sequence_logprob_tests
replaces: sequence_logprob
hunt: 2026-12-h
stated: Keep the graph ... even when every continuation is empty (the gradient is then 0)
"""

def sequence_logprob(logits, ids, prompt_lengths, lengths):
    sums = []
    for b in range(ids.size(0)):
        p, l = int(prompt_lengths[b]), int(lengths[b])
        if p == l:
            sums.append(torch.tensor(0.0, dtype=logits.dtype))
            continue
        log_probs = torch.log_softmax(logits[b, p - 1:l - 1], dim=-1)
        sums.append(log_probs.gather(-1, ids[b, p:l].unsqueeze(-1)).sum())
    return torch.stack(sums)
