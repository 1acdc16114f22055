// Placeholder: the reports arrive with issue 6.
