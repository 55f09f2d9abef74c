package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratebench/summary"
)

const samplesDir = "../../traces/samples"

// figures returns the tables compare printed, without the lines that name
// the trace, its folder or the time it took.
func figures(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "wrote ") || strings.HasPrefix(l, "replaying ") || strings.Contains(l, "requests/s)") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// compareFigures runs compare on a trace with flags into a folder of its
// own and returns its tables and summary.
func compareFigures(t *testing.T, dir, name string, args ...string) (string, *summary.Summary) {
	t.Helper()
	o := filepath.Join(dir, name)
	args = append([]string{"compare", "-rule", "3/10s", "-alg", "counter,fixed", "-report=false", "-o", o}, args...)
	out, _, err := ratebench(t, args...)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(o, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	return figures(out), s
}

// The tab-separated NASA-shaped sample, read with only -key host -ts time
// (and the unit of its Unix seconds), and the Caddy-shaped JSON log with
// -key request.remote_ip, give the figures of the same requests written
// as a plain ts,key CSV (decoded here with encoding/csv and encoding/json).
func TestCompareDelimitedAndNestedSamples(t *testing.T) {
	dir := t.TempDir()

	raw, err := os.ReadFile(filepath.Join(samplesDir, "nasa.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	cr := csv.NewReader(bytes.NewReader(raw))
	cr.Comma = '\t'
	rows, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	plain.WriteString("ts,key\n")
	for _, r := range rows[1:] {
		fmt.Fprintf(&plain, "%s000000000,%s\n", r[2], r[0])
	}
	plainPath := filepath.Join(dir, "nasa-plain.csv")
	os.WriteFile(plainPath, plain.Bytes(), 0o644)
	want, _ := compareFigures(t, dir, "plain", "-trace", plainPath)
	// Unix seconds, told from their magnitude: no -ts-unit.
	got, s := compareFigures(t, dir, "tsv", "-trace", filepath.Join(samplesDir, "nasa.tsv"), "-key", "host", "-ts", "time")
	if got != want {
		t.Errorf("nasa.tsv:\n%s\nwant\n%s", got, want)
	}
	if s.Trace.Format != "csv" || s.Trace.Requests != 400 || s.Trace.Keys != 20 || s.Trace.StartNS != 804571209e9 || s.Trace.TSUnit != "s" || s.Trace.TSUnitFrom != "auto" {
		t.Errorf("nasa.tsv: trace %+v", s.Trace)
	}

	raw, err = os.ReadFile(filepath.Join(samplesDir, "caddy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	plain.Reset()
	plain.WriteString("ts,key\n")
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var rec struct {
			TS      json.Number
			Request struct {
				RemoteIP string `json:"remote_ip"`
			}
		}
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber()
		if err := d.Decode(&rec); err != nil {
			t.Fatal(err)
		}
		ns, _ := new(big.Rat).SetString(string(rec.TS))
		ns.Mul(ns, big.NewRat(1e9, 1))
		fmt.Fprintf(&plain, "%s,%s\n", ns.FloatString(0), rec.Request.RemoteIP)
	}
	plainPath = filepath.Join(dir, "caddy-plain.csv")
	os.WriteFile(plainPath, plain.Bytes(), 0o644)
	want, _ = compareFigures(t, dir, "caddy-plain", "-trace", plainPath)
	got, s = compareFigures(t, dir, "caddy", "-trace", filepath.Join(samplesDir, "caddy.jsonl"), "-key", "request.remote_ip")
	if got != want {
		t.Errorf("caddy.jsonl:\n%s\nwant\n%s", got, want)
	}
	if s.Trace.Format != "jsonl" || s.Trace.Requests != 300 || s.Trace.Keys != 11 {
		t.Errorf("caddy.jsonl: trace %+v", s.Trace)
	}
}

// convert takes the column flags: a headerless semicolon file with its
// columns given, and the NASA-shaped sample to a .tsv, which is written
// with tabs and reads back without flags.
func TestConvertColumnFlags(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	os.WriteFile(in, []byte("a;x;1700000000.5;3\nb;y;1700000001.25;\n"), 0o644)
	out := filepath.Join(dir, "out.csv")
	if _, _, err := ratebench(t, "convert", "-columns", "host,_,time,n", "-key", "host", "-ts", "time", "-cost", "n", "-sep", ";", in, out); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "ts,key,cost\n1700000000500000000,a,3\n1700000001250000000,b,1\n" {
		t.Errorf("out.csv:\n%s", b)
	}
	tsv := filepath.Join(dir, "nasa.tsv")
	if _, _, err := ratebench(t, "convert", "-key", "host", "-ts", "time", "-ts-unit", "s", filepath.Join(samplesDir, "nasa.tsv"), tsv); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(tsv)
	if !bytes.HasPrefix(b, []byte("ts\tkey\tcost\n804571209000000000\t192.0.2.54\t1\n")) {
		t.Errorf("nasa.tsv starts %q", b[:min(len(b), 60)])
	}
	out2, _, err := ratebench(t, "inspect", "-trace", tsv)
	if err != nil || !strings.Contains(out2, "requests   400 (total cost 400)") || !strings.Contains(out2, "keys       20") {
		t.Errorf("inspect: %v\n%s", err, out2)
	}
}

// Bad column flags and columns that are not there say what is wrong, with
// the file and line, and the columns there are.
func TestColumnFlagErrors(t *testing.T) {
	nasa := filepath.Join(samplesDir, "nasa.tsv")
	caddy := filepath.Join(samplesDir, "caddy.jsonl")
	for _, tt := range []struct {
		args  []string
		want  string
		usage bool
	}{
		{[]string{"inspect", "-trace", nasa, "-key", "host"},
			nasa + `:1: header has no "ts" column (columns: "host", "logname", "time", "method", "url", "response", "bytes")`, false},
		{[]string{"inspect", "-trace", nasa, "-key", "host", "-ts", "time", "-sep", ","},
			nasa + `:1: header has no "time" column (columns: "host\tlogname\ttime\tmethod\turl\tresponse\tbytes"; give the separator with -sep)`, false},
		{[]string{"inspect", "-trace", caddy, "-key", "request.ip"},
			caddy + `:1: missing "request.ip" (fields of request: "remote_ip", "remote_port", "client_ip", "proto", "method", "host", "uri", "headers", "tls")`, false},
		{[]string{"inspect", "-trace", nasa, "-sep", "ab"}, `-sep: invalid separator "ab": letters, digits and . - + are part of values: a separator needs another character`, true},
		{[]string{"inspect", "-trace", caddy, "-sep", "tab"}, `traces: -sep does not apply to JSON lines`, false},
		{[]string{"inspect", "-trace", nasa, "-key", "host", "-ts", "host"}, `traces: the timestamp and key columns cannot both be "host" (-ts, -key)`, false},
	} {
		_, _, err := ratebench(t, tt.args...)
		var ue usageError
		if err == nil || err.Error() != tt.want || errors.As(err, &ue) != tt.usage {
			t.Errorf("%v:\n got %v\nwant %s (usage error %v)", tt.args, err, tt.want, tt.usage)
		}
	}
}
