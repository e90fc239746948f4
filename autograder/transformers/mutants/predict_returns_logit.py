"""Returns the raw logit instead of its sigmoid, so the 'probability' can be negative or above 1.

question: predict_sentiment_tests
replaces: predict_sentiment
"""


def predict_sentiment(model, tokenizer, sentence):
    model.eval()
    encoded = tokenizer(sentence, return_tensors="pt", truncation=True, max_length=512)
    with torch.no_grad():
        logits = model(input_ids=encoded["input_ids"].to(DEVICE), attention_mask=encoded["attention_mask"].to(DEVICE))
    return logits.item()
