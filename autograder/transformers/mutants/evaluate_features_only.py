"""Calls the model with features=batch["features"] because the training batches hold cached features, so
evaluate fails on batches of token ids such as the notebook's test loader.

question: train_eval_loops_tests
replaces: train_eval_loops
"""


def evaluate(model, loader, criterion):
    model.eval()
    total_loss, total_accuracy = 0.0, 0.0
    with torch.no_grad():
        for batch in loader:
            labels = batch["labels"].to(DEVICE)
            logits = model(features=batch["features"].to(DEVICE),
                           attention_mask=batch["attention_mask"].to(DEVICE)).squeeze(1)
            total_loss += criterion(logits, labels).item()
            total_accuracy += binary_accuracy(logits, labels).item()
    return total_loss / len(loader), total_accuracy / len(loader)
