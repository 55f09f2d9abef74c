// Command benchtable reads the output of go test -bench (which stays
// benchstat-compatible: make bench keeps it in bench.txt) and prints it as
// a Markdown table: one row per benchmark, one column per unit, and for
// ns/op the decisions (or requests) per second it means.
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
	name    string
	metrics map[string]string
}

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
		r := row{name: strings.TrimPrefix(pkg+".", ".") + strings.TrimPrefix(f[0], "Benchmark"), metrics: map[string]string{}}
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
