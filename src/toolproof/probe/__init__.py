"""Server probes that need no suite: lint a server's tool schemas, audit its tools with valid arguments,
fuzz them, check that it follows the protocol (conformance), and load it with concurrent calls (`load`)."""
