// Placeholder: the oracle arrives with issue 6.
