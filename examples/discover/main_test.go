package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRunDemoJSON(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), &out, "", jsonOut, true, false); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var r struct {
		Origin string `json:"origin"`
		Skills *struct {
			Title    string `json:"title"`
			BaseURL  string `json:"base_url"`
			Sections []struct {
				Heading string `json:"heading"`
			} `json:"sections"`
		} `json:"skills"`
		MCP *struct {
			SpecVersion string `json:"spec_version"`
			Status      string `json:"status"`
			Servers     []struct {
				Name, URL, Transport string
			} `json:"servers"`
			Tools []struct{ Name, URL string } `json:"tools"`
		} `json:"mcp"`
		Fetches []struct {
			URL    string `json:"url"`
			Status int    `json:"status"`
			Source string `json:"source"`
		} `json:"fetches"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if r.Skills == nil || r.Skills.Title != "Skills" || r.Skills.BaseURL != "/api/v1" || len(r.Skills.Sections) != 7 {
		t.Errorf("skills = %+v", r.Skills)
	}
	if r.MCP == nil || r.MCP.SpecVersion != "2026-06-13" || len(r.MCP.Servers) != 1 || r.MCP.Servers[0].Transport != "sse" ||
		len(r.MCP.Tools) != 1 || r.MCP.Tools[0].Name != "ticket-status" {
		t.Errorf("mcp = %+v", r.MCP)
	}
	if len(r.Fetches) != 2 || r.Fetches[0].Source != "network" || r.Fetches[1].Status != 200 {
		t.Errorf("fetches = %+v", r.Fetches)
	}
	if r.Warnings == nil || !strings.HasPrefix(r.Origin, "https://127.0.0.1:") {
		t.Errorf("origin %q, warnings %v", r.Origin, r.Warnings)
	}
}

func TestRunDemoText(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), &out, "", text, false, false); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"title:    Skills", "## Risky Actions", "API base: https://127.0.0.1:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRunModel(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), &out, "", modelOut, false, false); code != 0 {
		t.Fatalf("exit %d", code)
	}
	got := out.String()
	if !strings.HasPrefix(got, "<untrusted-site-guidance-") || !strings.Contains(got, "- POST /api/v1/tickets: open a ticket. Ask the user first.") {
		t.Errorf("output:\n%s", got)
	}
}

func TestRunExitCodes(t *testing.T) {
	notFound := httptest.NewServer(http.NotFoundHandler()) // plain http: allowed on loopback
	defer notFound.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
	}))
	defer broken.Close()
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{notFound.URL, 3},
		{broken.URL, 1},
		{"http://example.com", 1},
	} {
		var out bytes.Buffer
		if code := run(context.Background(), &out, tc.origin, jsonOut, false, false); code != tc.want {
			t.Errorf("run(%s) = %d, want %d", tc.origin, code, tc.want)
		}
	}
}
