package report

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"ratebench/summary"
)

// The argument, its prose in cloudflare_argument.md, renders the committed
// search's section as its committed page gives it, every template action
// filled in.
func TestSearchArgumentOfCommittedSearch(t *testing.T) {
	data, err := os.ReadFile("../results/cloudflare/search/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	var s summary.CloudflareSearch
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("../results/cloudflare/search/README.md")
	if err != nil {
		t.Fatal(err)
	}
	got, err := searchArgument(&s, "#")
	if err != nil {
		t.Fatal(err)
	}
	from := strings.Index(string(page), "## What sets each figure")
	to := strings.Index(string(page), "## Every point")
	if from < 0 || to < from {
		t.Fatal("the committed page has no argument")
	}
	if want := string(page)[from:to]; got != want {
		t.Errorf("the argument differs from the committed page's:\n%s\nwant\n%s", got, want)
	}
	for _, leftover := range []string{"{{", "}}", "<no value>", "%!"} {
		if strings.Contains(got, leftover) {
			t.Errorf("the argument holds %q", leftover)
		}
	}
}
