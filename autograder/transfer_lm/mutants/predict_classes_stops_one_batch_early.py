"""Ends the loop at range(0, len(inputs) - batch_size, batch_size) to keep the last slice from running
past the end: the reviews of the last batch, the one that starts at len(inputs) - batch_size or later,
get no prediction.

question: finetune_tests
replaces: finetune
"""


def predict_classes(model, inputs, lengths, batch_size=64):
    model.eval()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    predictions = []
    with torch.no_grad():
        for start in range(0, inputs.size(0) - batch_size, batch_size):
            x = inputs[start : start + batch_size].to(device)
            n = lengths[start : start + batch_size].to(device)
            predictions.append(model(x, mask, n).argmax(dim=-1).cpu())
    return torch.cat(predictions)
