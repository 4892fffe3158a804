//go:build unix

// Command curves measures how the cost of the SDK's readers and of wellknown scan
// grows with the size of what they read, and writes docs/performance.md with a plot
// (docs/performance.svg) it draws itself: parse time and allocations against document
// size for skills.md, mcp.json and AI Catalog documents (1 KiB to the 1 MiB cap, a
// realistic shape and adversarial ones), an Agent Skills index up to the 4,096 entries
// it reads, catalog.Prompt and Activate with up to 10,000 skills, and wellknown scan
// over 1,000 to 100,000 loopback origins (time and peak memory).
//
// Each curve is checked for growth faster than its size: the cost per byte (entry,
// skill, origin) at the largest size must stay within 2× of the lowest at a smaller
// size, and allocations within 1.5×; the scan's peak memory within 1.5× of the
// smallest scan's. A curve that fails is flagged in the page and the command exits 1.
//
// Run from the module root:
//
//	go run ./perf/curves            # the full run (several minutes): regenerates the page
//	go run ./perf/curves -short     # CI: small sizes, under a minute; writes nothing unless -md is given
//
// The scan listens on 0.0.0.0 (answering loopback peers only) so that one listener
// serves every 127.a.b.c address; it needs Linux, which routes all of 127.0.0.0/8 to
// the loopback interface.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

func main() {
	short := flag.Bool("short", false, "small sizes (CI): documents to 64 KiB, 1,024 index entries, 1,000 skills, 1,000 and 3,000 origins")
	md := flag.String("md", "", "write the page here (default docs/performance.md for a full run, nothing with -short)")
	svg := flag.String("svg", "", "write the plot here (default: the page's name with .svg)")
	originsFlag := flag.String("origins", "", "comma-separated origin counts of the scan (default 1000,10000,100000; -short: 1000,3000)")
	only := flag.String("only", "", "measure only the groups whose name contains this text (for investigating; writes no page)")
	flag.Parse()
	if *md == "" && !*short {
		*md = "docs/performance.md"
	}
	if *md != "" && *svg == "" {
		*svg = trimExt(*md) + ".svg"
	}

	sizes := []int{1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20}
	entries := []int{16, 64, 256, 1024, 4096}
	skills := []int{100, 1000, 10000}
	origins := []int{1000, 10000, 100000}
	batch := 100 * time.Millisecond
	if *short {
		sizes = []int{1 << 10, 4 << 10, 16 << 10, 64 << 10}
		entries = []int{16, 128, 1024}
		skills = []int{100, 1000}
		origins = []int{1000, 3000}
		batch = 20 * time.Millisecond
		maxTimeRatio = 3 // see maxTimeRatio
	}
	if *only != "" {
		*md = ""
	}
	if *originsFlag != "" {
		origins = nil
		for _, f := range strings.Split(*originsFlag, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				fatal(fmt.Errorf("-origins: %q is not a count", f))
			}
			origins = append(origins, n)
		}
	}
	want := func(group string) bool { return strings.Contains(group, *only) }
	start := time.Now()
	var curves []curve
	// The scan first: its time is wall time, best measured before this process has
	// grown.
	var scanned []curve
	if want(scanGroup) {
		sc, err := scanCurves(origins)
		if err != nil {
			fatal(err)
		}
		scanned = sc
	}
	curves = append(curves, docCurves(sizes, batch, want)...)
	if want(indexGroup) {
		curves = append(curves, indexCurve(entries, batch))
	}
	if want(catalogGroup) {
		cc, err := catalogCurves(skills, batch)
		if err != nil {
			fatal(err)
		}
		curves = append(curves, cc...)
	}

	curves = append(curves, scanned...)
	bad := 0
	for i := range curves {
		if curves[i].superlinear() {
			bad++
			t, a := curves[i].ratios()
			fmt.Fprintf(os.Stderr, "SUPERLINEAR: %s / %s: time ratio %.2f, allocation (or memory) ratio %.2f\n", curves[i].group, curves[i].name, t, a)
		}
	}
	if *md != "" {
		env := fmt.Sprintf("%s/%s, %d CPUs, %s; measured in %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), time.Since(start).Round(time.Second))
		if err := os.WriteFile(*svg, plot(curves), 0o644); err != nil {
			fatal(err)
		}
		if err := os.WriteFile(*md, page(curves, env, baseName(*svg)), 0o644); err != nil {
			fatal(err)
		}
	}
	if bad > 0 {
		fmt.Fprintf(os.Stderr, "curves: %d curves grow faster than their size\n", bad)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "curves: %d curves, all linear or better (%s)\n", len(curves), time.Since(start).Round(time.Second))
}

// progress prints one measured curve on stderr.
func progress(c *curve) {
	t, a := c.ratios()
	fmt.Fprintf(os.Stderr, "%-45s %-38s time ×%.2f allocs ×%.2f\n", c.group, c.name, t, a)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "curves:", err)
	os.Exit(2)
}

func trimExt(p string) string {
	for i := len(p) - 1; i >= 0 && p[i] != '/'; i-- {
		if p[i] == '.' {
			return p[:i]
		}
	}
	return p
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
