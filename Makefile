# Everyday targets. CI runs `make ci` (that is, bash .ci/run); each target here is a
# part of it, or a longer run of one.

GO            ?= go
FUZZTIME      ?= 12s
BENCH         ?= .
STATICCHECK   ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
GOLANGCI_LINT ?= github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0

.PHONY: all test race fuzz lint golangci-lint bench docs demo ci

all: test

# The README's first command: the main job on an embedded demo origin (no internet).
demo:
	$(GO) run ./cmd/wellknown demo

test:
	$(GO) test ./...

# The README's test command, as CI runs it.
race:
	$(GO) test -race -count=1 ./...

# Every fuzz target for FUZZTIME each (make fuzz FUZZTIME=5m for a longer run).
fuzz:
	FUZZTIME=$(FUZZTIME) bash .ci/fuzz

# gofmt, go vet and staticcheck, as CI runs them, then golangci-lint with .golangci.yml.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change: $$out" >&2; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	$(MAKE) golangci-lint

golangci-lint:
	$(GO) run $(GOLANGCI_LINT) run ./...

# Benchmarks; the paired figures held against a budget are in docs/development.md.
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' ./...

# Regenerates the generated documents (go generate: the CLI reference in docs/cli/),
# docs/comparison.md (needs npm), then checks every Go snippet of the docs.
docs:
	$(GO) generate ./...
	bash compare/run.sh
	$(GO) test -count=1 -run 'Snippet' ./internal/docsnippets

ci:
	bash .ci/run
