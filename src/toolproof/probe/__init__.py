"""Server probes that need no suite: lint a server's tool schemas, audit its tools with valid arguments,
fuzz them, and check that it follows the protocol (conformance)."""
