"""Server probes: lint a server's tool schemas, audit its tools with valid arguments, fuzz them."""
