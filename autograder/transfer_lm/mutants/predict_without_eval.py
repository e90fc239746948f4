"""Computes the predictions under torch.no_grad() but never calls model.eval(), so a model that was
just trained still predicts with dropout on.

question: finetune_tests
replaces: finetune
contract: predict_classes runs the model in evaluation mode
"""


def predict_classes(model, inputs, lengths, batch_size=64):
    device = next(model.parameters()).device
    mask = generate_square_subsequent_mask(inputs.size(1)).to(device)
    predictions = []
    with torch.no_grad():
        for start in range(0, inputs.size(0), batch_size):
            x = inputs[start : start + batch_size].to(device)
            n = lengths[start : start + batch_size].to(device)
            predictions.append(model(x, mask, n).argmax(dim=-1).cpu())
    return torch.cat(predictions)
