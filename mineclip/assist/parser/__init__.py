"""The neural semantic parser (TTAD-style): a bi-GRU encoder with multi-head attention that tags
slot spans and classifies the dictionary's fields (`model`), its training on generated pairs
(`train`), its metrics (`metrics`) and inference with the packaged weights (`infer`)."""
