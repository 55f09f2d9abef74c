package summary

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestTraceWarnings(t *testing.T) {
	const day = 86400e9
	s2015 := int64(1431857112) // 2015-05-17T10:05:12Z, in seconds
	tests := []struct {
		name  string
		trace TraceInfo
		rules []string
		want  []string
	}{
		{"seconds read as ns", TraceInfo{Format: "csv", TSUnit: "ns", TSUnitFrom: "explicit", Requests: 9, StartNS: s2015, EndNS: s2015 + 86400}, []string{"5/30s"}, []string{
			"times from 1970-01-01T00:00:01.431857112Z to 1970-01-01T00:00:01.431943512Z fall before 1990: read as ns (explicit); as s they would be 2015-05-17T10:05:12Z to 2015-05-18T10:05:12Z: try -ts-unit s",
			"the trace spans 86.4µs, less than the 30s window of rule 5/30s, which never fills: read as ns (explicit); as s it would span 24h0m0s: try -ts-unit s",
		}},
		{"ms read as us", TraceInfo{Format: "jsonl", TSUnit: "us", TSUnitFrom: "explicit", Requests: 2, StartNS: 1431857112123 * 1e3, EndNS: 1431857112124 * 1e3}, []string{"5/30s"}, []string{
			"times from 1970-01-17T13:44:17.112123Z to 1970-01-17T13:44:17.112124Z fall before 1990: read as us (explicit); as ms they would be 2015-05-17T10:05:12.123Z to 2015-05-17T10:05:12.124Z: try -ts-unit ms",
			"the trace spans 1µs, less than the 30s window of rule 5/30s, which never fills: try a shorter window (-rule)",
		}},
		{"after 2100", TraceInfo{Format: "csv", TSUnit: "s", TSUnitFrom: "auto", Requests: 2, StartNS: 5e18, EndNS: 5e18 + 3600e9}, []string{"5/30s"}, []string{
			"times from 2128-06-11T08:53:20Z to 2128-06-11T09:53:20Z fall after 2100: read as s (auto), and no other unit puts them between 1990 and 2100: check the timestamps",
		}},
		{"offsets from 0", TraceInfo{Format: "csv", TSUnit: "ns", TSUnitFrom: "auto", Requests: 9, StartNS: 0, EndNS: day}, []string{"5/30s", "2/1s+10/1h"}, []string{
			"times from 1970-01-01T00:00:00Z to 1970-01-02T00:00:00Z fall before 1990: read as ns (auto); fine for offsets from 0 (a synthetic trace), but Unix times need their unit: try -ts-unit s, ms, us or ns",
		}},
		{"short, longest window of a layered rule", TraceInfo{Format: "accesslog", Requests: 9, StartNS: s2015 * 1e9, EndNS: s2015*1e9 + 40e9}, []string{"5/30s", "2/1s+10/1h"}, []string{
			"the trace spans 40s, less than the 1h window of rule 10/1h, which never fills: try a shorter window (-rule)",
		}},
		{"dates of a Parquet TIMESTAMP column", TraceInfo{Format: "parquet", TSUnit: "ms", TSUnitFrom: "file", Requests: 9, StartNS: 5, EndNS: day}, []string{"5/30s"}, []string{
			"times from 1970-01-01T00:00:00.000000005Z to 1970-01-02T00:00:00Z fall before 1990: the trace gives them as dates; check that they are right",
		}},
		{"right", TraceInfo{Format: "csv", TSUnit: "s", TSUnitFrom: "auto", Requests: 9, StartNS: s2015 * 1e9, EndNS: s2015*1e9 + day}, []string{"5/30s"}, nil},
		{"generated traces start where the generator says", TraceInfo{Format: "generated", Requests: 9, StartNS: 0, EndNS: 10}, []string{"5/30s"}, nil},
		{"empty", TraceInfo{Format: "csv", TSUnit: "ns", TSUnitFrom: "auto"}, []string{"5/30s"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TraceWarnings(tt.trace, tt.rules)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// A summary with the fields of schema 1.1 says so, one without them stays
// v1, and both read back.
func TestSchemaVersions(t *testing.T) {
	s := validSummary(1)
	if got := SchemaOf(s); got != SchemaV1 {
		t.Errorf("without ts_unit: %q", got)
	}
	s.Trace.TSUnit, s.Trace.TSUnitFrom = "s", "auto"
	if got := SchemaOf(s); got != SchemaV1_1 {
		t.Errorf("with ts_unit: %q", got)
	}
	s.Schema = SchemaOf(s)
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\"format\": \"csv\",\n  \"ts_unit\": \"s\",\n  \"ts_unit_from\": \"auto\",\n") {
		t.Errorf("no ts_unit in\n%s", data)
	}
	back, err := ReadSummary(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if back.Trace.TSUnit != "s" || back.Trace.TSUnitFrom != "auto" || back.Schema != SchemaV1_1 {
		t.Errorf("read back %+v", back.Trace)
	}
	v1 := validSummary(1)
	if data, err := v1.Marshal(); err != nil {
		t.Fatal(err)
	} else if back, err := ReadSummary(bytes.NewReader(data)); err != nil || back.Schema != SchemaV1 {
		t.Errorf("schema v1: %v", err)
	}
	// Shards read in other units are not of the same trace.
	a, b := *s, *s
	b.Trace.TSUnit = "ms"
	if _, err := MergeDisjoint([]*Summary{&a, &b}); err == nil || !strings.Contains(err.Error(), `read the timestamps in "ms", part 0 in "s"`) {
		t.Errorf("merging units: %v", err)
	}
	m, err := MergeDisjoint([]*Summary{&a, &a})
	if err != nil || m.Trace.TSUnit != "s" || m.Trace.TSUnitFrom != "auto" || m.Schema != SchemaV1_1 {
		t.Errorf("merged: %+v, %v", m, err)
	}
}
