// Tests that import TestSupport also get the seeded generator their splits are drawn from.
@_exported import SquallCore
