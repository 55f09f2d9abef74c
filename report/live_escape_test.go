package report

import (
	"strings"
	"testing"

	"ratebench/summary"
)

// live.md escapes untrusted text (the software's name and version, what
// it was configured with, the trace's format, the notes) by the same
// rule as ratebench's reports: what does not print is shown escaped, and
// entities and markup are literal.
func TestLiveMarkdownEscapesUntrustedText(t *testing.T) {
	r := &summary.Live{Target: "redis:log",
		Trace:    summary.LiveTrace{Path: "t.csv", Format: "csv&amp;"},
		Rule:     "5/30s",
		Software: "Redis 7.2 &lt;b&gt;\nx",
		Setup:    []string{"server=evil\u202eost:1"},
		Notes:    []string{"$x$ and 1. item"},
	}
	var b strings.Builder
	if err := LiveMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		`(csv\&amp;)`,
		`Redis 7.2 \&lt;b\&gt;\\nx ran`,
		`evil\\u202eost:1`,
		`- \$x\$ and 1. item`,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("live.md lacks %q:\n%s", want, md)
		}
	}
	if strings.ContainsRune(md, '\u202e') {
		t.Error("live.md holds a bidirectional override as is")
	}
}
