"""Copies forward's torch.arange(T) for the positions, so every new id gets positions from 0 again
instead of its absolute position past .. past + new - 1.

question: decoder_step_tests
replaces: decoder_step
"""


def decoder_step(decoder, new_inputs, annotations, cache=None):
    x = decoder.embedding(new_inputs)
    if decoder.positions is not None:
        x = x + decoder.positions(torch.arange(new_inputs.shape[1], device=new_inputs.device))
    new_cache = []
    for i, (self_att, source_att, ff) in enumerate(
            zip(decoder.self_attention, decoder.source_attention, decoder.feed_forward)):
        context, layer_cache = cached_causal_attention(self_att, x, None if cache is None else cache[i])
        new_cache.append(layer_cache)
        x = decoder.norms[3 * i](x + context)
        context, _ = source_att(x, annotations, annotations)
        x = decoder.norms[3 * i + 1](x + context)
        x = decoder.norms[3 * i + 2](x + ff(x))
    return decoder.out(x), new_cache
