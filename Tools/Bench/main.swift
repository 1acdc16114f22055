// Benchmarks: see Tools/bench.sh.
