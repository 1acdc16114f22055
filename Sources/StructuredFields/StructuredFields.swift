// Module StructuredFields: see README.md.
