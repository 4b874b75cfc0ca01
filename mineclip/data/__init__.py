"""Data: transcripts, clip extraction, WebDataset shards, loading pipeline and DataModule."""
