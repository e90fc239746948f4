"""Wraps evaluate_lm in torch.no_grad() but never calls model.eval(), so dropout stays on while the
held-out loss is measured right after training.

question: train_lm_tests
replaces: train_lm
contract: evaluate_lm runs the model in evaluation mode
"""


def evaluate_lm(model, inputs, targets, batch_size=32):
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    total, count = 0.0, 0
    with torch.no_grad():
        for start in range(0, inputs.size(0), batch_size):
            x = inputs[start : start + batch_size].to(device)
            y = targets[start : start + batch_size].to(device)
            total += F.cross_entropy(model(x, mask).flatten(0, 1), y.flatten(), reduction="sum").item()
            count += y.numel()
    loss = total / count
    return loss, math.exp(loss)
