"""LLM providers behind one interface (see `base`)."""
