package redisreplay

import (
	"strings"
	"testing"
)

// The Markdown report escapes untrusted text (a server address and
// version, the trace's format) by the same rule as ratebench's reports:
// what does not print is shown escaped, and entities and markup are
// literal.
func TestMarkdownEscapesUntrustedText(t *testing.T) {
	r := &Result{
		Trace:  TraceInfo{Path: "t.csv", Format: "csv&amp;"},
		Rule:   "5/30s",
		Server: ServerInfo{Addr: "evil\u202eost:1", Version: "7.2 &lt;b&gt;\nx"},
		Notes:  []string{"$x$ and 1. item"},
	}
	var b strings.Builder
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		`(csv\&amp;)`,
		`Redis 7.2 \&lt;b\&gt;\\nx, at evil\\u202eost:1.`,
		`- \$x\$ and 1. item`,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
	if strings.ContainsRune(md, '\u202e') {
		t.Error("the report holds a bidirectional override as is")
	}
}
