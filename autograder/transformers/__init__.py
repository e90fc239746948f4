"""Hidden tests for the transformers assignment (attention up to MiniBERT, MLM, frozen-BERT sentiment)."""
