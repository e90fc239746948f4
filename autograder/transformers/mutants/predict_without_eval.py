"""Forgets model.eval(), so dropout makes the prediction random.

question: predict_sentiment_tests
replaces: predict_sentiment
contract: predict_sentiment runs the model in eval mode
"""


def predict_sentiment(model, tokenizer, sentence):
    encoded = tokenizer(sentence, return_tensors="pt", truncation=True, max_length=512)
    with torch.no_grad():
        logits = model(input_ids=encoded["input_ids"].to(DEVICE), attention_mask=encoded["attention_mask"].to(DEVICE))
    return torch.sigmoid(logits).item()
