package summary

import (
	"slices"
	"strings"
	"testing"
)

// A summary's input flags give every suggested command on its trace, in
// the order of InputFlags whatever order they were recorded in, with
// explain's -key-by for the key's column, a boolean flag as its name
// alone, and a -reorder suggested in place of the one given; a generated
// trace is named by -gen; a summary from before input_args keeps its
// explicit -ts-unit.
func TestTraceCommand(t *testing.T) {
	tr := TraceInfo{Path: "logs/access log", Format: "accesslog", Input: []InputArg{
		{"skip-bad", "true"}, {"reorder", "35s"}, {"key", "user"}, {"format", "accesslog"}, {"sep", ";"},
	}}
	for _, tc := range []struct {
		got  []string
		want string
	}{
		{tr.Command(Program, "compare"), "ratebench|compare|-trace|logs/access log|-format|accesslog|-key|user|-sep|;|-reorder|35s|-skip-bad"},
		{tr.Command(Program, "explain"), "ratebench|explain|-trace|logs/access log|-format|accesslog|-key-by|user|-sep|;|-reorder|35s|-skip-bad"},
		{tr.WithInput("reorder", "59s").Command(Program, "inspect"), "ratebench|inspect|-trace|logs/access log|-format|accesslog|-key|user|-sep|;|-reorder|59s|-skip-bad"},
		{TraceInfo{Path: "gen:poisson:requests=10", Format: "generated"}.Command(Program, "explain"), "ratebench|explain|-gen|poisson:requests=10"},
		{TraceInfo{Path: "t.csv", Format: "csv", TSUnit: "ms", TSUnitFrom: "explicit"}.Command(Program, "compare"), "ratebench|compare|-trace|t.csv|-ts-unit|ms"},
		{TraceInfo{Path: "t.csv", Format: "csv", TSUnit: "ms", TSUnitFrom: "explicit"}.WithInput("reorder", "1s").Command(Program, "compare"), "ratebench|compare|-trace|t.csv|-ts-unit|ms|-reorder|1s"},
		{TraceInfo{Path: "t.csv", Format: "csv", TSUnit: "ms", TSUnitFrom: "auto"}.Command(Program, "compare"), "ratebench|compare|-trace|t.csv"},
	} {
		if got := strings.Join(tc.got, "|"); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
	if len(tr.Input) != 5 || tr.Input[1].Value != "35s" {
		t.Errorf("WithInput changed the summary's own flags: %+v", tr.Input)
	}
}

// Validate refuses input flags no command reads a trace with, given twice,
// without a value, or with a value the flag does not take.
func TestValidateInputArgs(t *testing.T) {
	for _, tc := range []struct {
		args []InputArg
		want string
	}{
		{[]InputArg{{"format", "accesslog"}, {"reorder", "59s"}, {"skip-bad", "true"}}, ""},
		{[]InputArg{{"o", "dir"}}, `trace.input_args[0].flag: "o" is not a flag of how a trace is read`},
		{[]InputArg{{"key", "user"}, {"key", "ip"}}, `trace.input_args[1].flag: "key" is given twice`},
		{[]InputArg{{"sep", ""}}, `trace.input_args[0].value: missing`},
		{[]InputArg{{"reorder", "soon"}}, `trace.input_args[0].value: "soon" is not a duration`},
		{[]InputArg{{"skip-bad", "yes"}}, `trace.input_args[0].value: "yes" is not true or false`},
		{[]InputArg{{"max-line", "0"}}, `trace.input_args[0].value: "0" is not a positive number of bytes`},
	} {
		s := validSummary(3)
		s.Trace.Input = tc.args
		err := s.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: %v, want %s", tc.args, err, tc.want)
		}
	}
}

// Parts read with other input flags are not shares of one replay: merge
// refuses them, naming the flags; parts read alike merge, keeping them.
func TestMergeKeepsInputArgs(t *testing.T) {
	a, b := validSummary(3), validSummary(3)
	a.Trace.Input = []InputArg{{"format", "accesslog"}, {"reorder", "59s"}}
	b.Trace.Input = []InputArg{{"format", "accesslog"}}
	_, err := MergeDisjoint([]*Summary{a, b})
	if err == nil || !strings.Contains(err.Error(), `merge: part 1 read the trace with the flags "-format accesslog", part 0 with "-format accesslog -reorder 59s"`) {
		t.Errorf("merge of parts read otherwise: %v", err)
	}
	b.Trace.Input = slices.Clone(a.Trace.Input)
	m, err := MergeDisjoint([]*Summary{a, b})
	if err != nil || !slices.Equal(m.Trace.Input, a.Trace.Input) {
		t.Errorf("merge of parts read alike: %v, input %+v", err, m)
	}
}
