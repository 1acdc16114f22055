// Placeholder: the proxy connection flow arrives with issue 5.
