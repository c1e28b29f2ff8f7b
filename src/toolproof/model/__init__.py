"""What a test is and what was observed. Pure data: imports nothing else of toolproof.

Import the submodule a name lives in (`toolproof.model.scenario`, `.server_case`, `.observation`, ...): the
package re-exports nothing, so a command builds only the models it uses.
"""
