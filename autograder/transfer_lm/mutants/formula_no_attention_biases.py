"""Forgets the biases of the attention projections (3 * nhid for q/k/v and nhid for the output).

question: parameter_formula_tests
replaces: parameter_formula
"""


def formula_parameter_count(ntoken, nhid, nlayers, nhead, nclasses):
    """Trainable parameters of Model(ntoken, nhead, nhid, nlayers, nclasses), feed-forward width nhid,
    worked out on paper: return an int computed from the arguments with arithmetic only (do not build
    a model here). Our solution is about 6 lines.
    """
    embedding = ntoken * nhid                                          # one vector per token
    attention = (3 * nhid * nhid) + (nhid * nhid)    # packed q/k/v projection + output projection
    feed_forward = 2 * (nhid * nhid + nhid)                            # two Linear(nhid, nhid), with biases
    norms = 2 * (2 * nhid)                                             # two LayerNorms, weight and bias each
    head = nhid * nclasses + nclasses
    return embedding + nlayers * (attention + feed_forward + norms) + head   # nhead changes nothing
