"""Torch front end: traces a PyTorch function, with shape-only tensors,
into trnbench workload specs, one for eager execution and one for the
graph torch.compile hands the Neuron compiler (docs/torch-source.md)."""
