# make bench reproduces the figures of BENCHMARKS.md (scripts/bench does the work).
.PHONY: bench
bench:
	scripts/bench
