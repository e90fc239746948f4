"""Collects the predictions in a Python list with predictions.extend(scores.argmax(dim=-1).squeeze().tolist()):
for a batch of one review the squeeze leaves a 0-d tensor, whose tolist() is a bare int, and extend
raises.

question: finetune_tests
replaces: finetune
"""


def predict_classes(model, inputs, lengths, batch_size=64):
    model.eval()
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    predictions = []
    with torch.no_grad():
        for start in range(0, inputs.size(0), batch_size):
            x = inputs[start : start + batch_size].to(device)
            n = lengths[start : start + batch_size].to(device)
            predictions.extend(model(x, mask, n).argmax(dim=-1).squeeze().tolist())
    return torch.tensor(predictions, dtype=torch.long)
