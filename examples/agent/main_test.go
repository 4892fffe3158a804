package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestAgentLoop(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), &out, "testdata/local"); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{
		"Title: Demo Shop", "- POST /orders places an order: ask the user first.", // discover_site
		"- deploy: Deploy the user's project.", "[local]", "[mcp reports]", "invoice-check", // one catalog, three sources
		"[approve skill weekly-report from mcp] yes", "GET /api/v1/orders?since=7d", // activation, with approval
		"| day | total |", // a file, when asked
		"> GET /api/v1/orders through the guard: 200 [{", // the API call through the guard
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
