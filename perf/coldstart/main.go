// Command coldstart measures how long wellknown takes to start: it builds the binary
// (or takes -bin), runs "wellknown version" -n times, and prints the median wall time
// and the median of the package initialisation totals GODEBUG=inittrace=1 reports,
// with the packages whose initialisation costs the most.
//
//	go run ./perf/coldstart            # 20 runs of a fresh build
//	go run ./perf/coldstart -bin /tmp/wellknown-old -n 40
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	bin := flag.String("bin", "", "the wellknown binary (default: build ./cmd/wellknown)")
	n := flag.Int("n", 20, "runs")
	top := flag.Int("top", 8, "packages to list")
	flag.Parse()
	if *bin == "" {
		dir, err := os.MkdirTemp("", "coldstart-")
		if err != nil {
			fatal(err)
		}
		defer os.RemoveAll(dir)
		*bin = filepath.Join(dir, "wellknown")
		if out, err := exec.Command("go", "build", "-o", *bin, "./cmd/wellknown").CombinedOutput(); err != nil {
			fatal(fmt.Errorf("go build: %v\n%s", err, out))
		}
	}
	var walls, inits, allocs []float64
	perPkg := map[string][]float64{}
	for range *n {
		cmd := exec.Command(*bin, "version")
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			fatal(fmt.Errorf("%v\n%s", err, stderr.String()))
		}
		walls = append(walls, float64(time.Since(start))/1e6)
		total, bytesTotal := 0.0, 0.0
		sc := bufio.NewScanner(&stderr)
		for sc.Scan() {
			// init <pkg> @<t> ms, <clock> ms clock, <bytes> bytes, <allocs> allocs
			f := strings.Fields(sc.Text())
			if len(f) < 8 || f[0] != "init" {
				continue
			}
			clock, _ := strconv.ParseFloat(f[4], 64)
			b, _ := strconv.ParseFloat(f[7], 64)
			total += clock
			bytesTotal += b
			perPkg[f[1]] = append(perPkg[f[1]], clock)
		}
		inits = append(inits, total)
		allocs = append(allocs, bytesTotal)
	}
	fmt.Printf("wellknown version, %d runs: wall median %.1f ms (min %.1f); package init median %.1f ms, %.0f KiB allocated\n",
		*n, median(walls), slices.Min(walls), median(inits), median(allocs)/1024)
	type pc struct {
		name string
		ms   float64
	}
	var pkgs []pc
	for name, v := range perPkg {
		pkgs = append(pkgs, pc{name, median(v)})
	}
	slices.SortFunc(pkgs, func(a, b pc) int {
		switch {
		case a.ms > b.ms:
			return -1
		case a.ms < b.ms:
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	for _, p := range pkgs[:min(*top, len(pkgs))] {
		fmt.Printf("  %-60s %6.2f ms\n", p.name, p.ms)
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "coldstart:", err)
	os.Exit(1)
}
