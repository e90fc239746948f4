"""Reads the past length from the values, indexes the position table's rows directly instead of calling the
embedding, and builds the new cache with a comprehension over the layers' caches.

question: decoder_step_tests
replaces: decoder_step
"""


def decoder_step(decoder, new_inputs, annotations, cache=None):
    layers = len(decoder.self_attention)
    caches = [None] * layers if cache is None else list(cache)
    past = 0 if cache is None else caches[-1][1].size(1)
    x = decoder.embedding(new_inputs)
    if decoder.positions is not None:
        x = x + decoder.positions.weight[past : past + new_inputs.size(1)]
    new_cache = []
    for i in range(layers):
        context, layer_cache = cached_causal_attention(decoder.self_attention[i], x, caches[i])
        new_cache = new_cache + [layer_cache]
        x = decoder.norms[3 * i](x + context)
        x = decoder.norms[3 * i + 1](x + decoder.source_attention[i](x, annotations, annotations)[0])
        x = decoder.norms[3 * i + 2](x + decoder.feed_forward[i](x))
    return decoder.out(x), new_cache
