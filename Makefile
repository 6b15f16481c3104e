# make test runs what CI runs (.ci/run): vet, staticcheck, gofmt, the
# binaries end to end, a short fuzz pass, then every test, PostgreSQL's
# and the browser's included (it installs what is missing).
.PHONY: test
test:
	bash .ci/run

# make bench reproduces the figures of BENCHMARKS.md (scripts/bench does the work).
.PHONY: bench
bench:
	scripts/bench
