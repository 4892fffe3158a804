// Command coldstart measures how long wellknown takes to start: it builds the binary
// (or takes -bin), runs "wellknown version" -n times, and prints the median wall time,
// the median CPU time (user and system: on a loaded machine the steadier figure) and
// the median of the package initialisation totals GODEBUG=inittrace=1 reports, with
// the packages whose initialisation costs the most.
//
//	go run ./perf/coldstart            # 20 runs of a fresh build
//	go run ./perf/coldstart -bin /tmp/wellknown-old -n 40
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
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
	discover := flag.Bool("discover", false, "also time \"wellknown discover --structured\" against a loopback server")
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
	var walls, cpus, inits, allocs []float64
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
		cpus = append(cpus, float64(cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())/1e6)
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
	fmt.Printf("wellknown version, %d runs: wall median %.1f ms (min %.1f), CPU median %.1f ms; package init median %.1f ms, %.0f KiB allocated\n",
		*n, median(walls), slices.Min(walls), median(cpus), median(inits), median(allocs)/1024)
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
	if *discover {
		timeDiscover(*bin, *n)
	}
}

// timeDiscover runs "wellknown discover --structured" n times against a loopback
// server publishing skills.md and mcp.json, and prints the median wall and CPU times.
func timeDiscover(bin string, n int) {
	skills, err1 := os.ReadFile(filepath.Join("cmd", "wellknown", "testdata", "scan", "skills.md"))
	mcp, err2 := os.ReadFile(filepath.Join("cmd", "wellknown", "testdata", "scan", "mcp.json"))
	if err := errors.Join(err1, err2); err != nil {
		fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/skills.md":
			w.Header().Set("Content-Type", "text/markdown")
			w.Write(skills)
		case "/.well-known/mcp.json":
			w.Header().Set("Content-Type", "application/json")
			w.Write(mcp)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	var walls, cpus []float64
	for range n {
		cmd := exec.Command(bin, "discover", "--structured", srv.URL)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			fatal(fmt.Errorf("discover: %v\n%s", err, out))
		}
		walls = append(walls, float64(time.Since(start))/1e6)
		cpus = append(cpus, float64(cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())/1e6)
	}
	fmt.Printf("wellknown discover --structured (loopback), %d runs: wall median %.1f ms (min %.1f), CPU median %.1f ms\n",
		n, median(walls), slices.Min(walls), median(cpus))
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
