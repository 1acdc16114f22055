// Module TLSKit: see README.md.
