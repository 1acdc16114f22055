// Placeholder: the chaos proxy arrives with issue 5.
