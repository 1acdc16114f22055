// Module Capture: see README.md.
