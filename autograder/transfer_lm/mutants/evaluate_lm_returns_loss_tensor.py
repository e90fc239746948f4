"""Leaves out torch.no_grad() and adds up the loss tensors themselves (no .item()), so evaluate_lm
returns its loss as a tensor that holds the graph of every batch it measured; the perplexity, through
math.exp, still comes out a float.

question: train_lm_tests
replaces: train_lm
contract: evaluate_lm returns the loss and the perplexity as two Python floats
"""


def evaluate_lm(model, inputs, targets, batch_size=32):
    model.eval()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    total, count = 0.0, 0
    for start in range(0, inputs.size(0), batch_size):
        x = inputs[start : start + batch_size].to(device)
        y = targets[start : start + batch_size].to(device)
        logits = model(x, mask)
        total = total + F.cross_entropy(logits.flatten(0, 1), y.flatten(), reduction="sum")
        count += y.numel()
    loss = total / count
    return loss, math.exp(loss)
