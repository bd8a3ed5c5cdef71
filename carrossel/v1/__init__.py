"""Generated code for carrossel.v1; run `make proto` to regenerate it."""
