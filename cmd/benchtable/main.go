// Command benchtable reads the output of go test -bench (which stays
// benchstat-compatible: make bench keeps it in bench.txt) and prints it as
// a Markdown table: one row per benchmark, one column per unit, and for
// ns/op the decisions (or requests) per second it means. Where a package
// has a Floor benchmark (the least a harness does per request), every
// req/s of that package is also given as a multiple of the floor's, from
// the same run: the column "× floor".
//
//	go test -run '^$' -bench . ./... | tee bench.txt | benchtable
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

func main() {
	if err := table(os.Stdout, os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

// row is one benchmark result line.
type row struct {
	pkg, name string
	metrics   map[string]string
}

// floorUnit is the column of the ratios to the package's Floor benchmark.
const floorUnit = "× floor"

// table reads benchmark lines from in and writes the table to out; lines
// that are not results pass through as headings (pkg:) or are dropped.
func table(out io.Writer, in io.Reader) error {
	var rows []row
	var units []string
	pkg := ""
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = p
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		r := row{pkg: pkg, name: strings.TrimPrefix(pkg+".", ".") + strings.TrimPrefix(f[0], "Benchmark"), metrics: map[string]string{}}
		for i := 2; i+1 < len(f); i += 2 {
			unit := f[i+1]
			if !slices.Contains(units, unit) {
				units = append(units, unit)
			}
			r.metrics[unit] = f[i]
		}
		if ns, err := strconv.ParseFloat(r.metrics["ns/op"], 64); err == nil && ns > 0 && r.metrics["req/s"] == "" && r.metrics["decisions/s"] == "" {
			r.metrics["ops/s"] = fmt.Sprintf("%.3gM", 1e3/ns)
			if !slices.Contains(units, "ops/s") {
				units = append(units, "ops/s")
			}
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("no benchmark results in the input")
	}
	if floorRatios(rows) {
		units = append(units, floorUnit)
	}
	fmt.Fprintf(out, "| benchmark | %s |\n|---|%s\n", strings.Join(units, " | "), strings.Repeat("---:|", len(units)))
	for _, r := range rows {
		cells := make([]string, len(units))
		for i, u := range units {
			cells[i] = r.metrics[u]
		}
		fmt.Fprintf(out, "| %s | %s |\n", r.name, strings.Join(cells, " | "))
	}
	return nil
}

// floorRatios sets the floorUnit cell of every row with a req/s in a
// package that has a Floor benchmark with one, and reports whether it set
// any.
func floorRatios(rows []row) bool {
	floor := map[string]float64{} // by package
	for _, r := range rows {
		base, _, _ := strings.Cut(strings.TrimPrefix(r.name, strings.TrimPrefix(r.pkg+".", ".")), "-")
		if v, err := strconv.ParseFloat(r.metrics["req/s"], 64); base == "Floor" && err == nil && v > 0 {
			floor[r.pkg] = v
		}
	}
	set := false
	for _, r := range rows {
		f, ok := floor[r.pkg]
		v, err := strconv.ParseFloat(r.metrics["req/s"], 64)
		if ok && err == nil {
			r.metrics[floorUnit] = fmt.Sprintf("%.2f", v/f)
			set = true
		}
	}
	return set
}
