// Module HTTPWire: see README.md.
