package traces

import (
	"strings"
	"testing"
)

// A field name of more parts than a JSON lines reader follows is refused
// when the reader is made, naming the flag; one of the most parts it takes
// is read, and the names take memory in proportion to their length (a
// 50,000-part -key path used to build every suffix of itself, gigabytes).
func TestJSONLPathParts(t *testing.T) {
	long := strings.Repeat("a.", 50_000) + "k"
	_, err := NewJSONLReader(strings.NewReader(`{"ts":1,"key":"x"}`+"\n"), "t.jsonl", Options{Key: long})
	if err == nil || !strings.Contains(err.Error(), "-key") || !strings.Contains(err.Error(), "50001 parts") ||
		!strings.Contains(err.Error(), "at most 64") {
		t.Fatalf("a 50,001-part key path: err = %v, want it refused naming -key, its parts and the limit", err)
	}
	_, err = NewJSONLReader(strings.NewReader(""), "t.jsonl", Options{Key: "k", TS: strings.Repeat("t.", 64) + "ts"})
	if err == nil || !strings.Contains(err.Error(), "-ts") {
		t.Fatalf("a 65-part ts path: err = %v, want it refused naming -ts", err)
	}

	// 64 parts: the most taken, read as any other path.
	path := strings.Repeat("a.", maxPathParts-1) + "k"
	line := strings.Repeat(`{"a":`, maxPathParts-1) + `{"k":"deep"}` + strings.Repeat("}", maxPathParts-1)
	line = `{"ts":5,` + line[1:]
	got, err := read(FormatJSONL, []byte(line+"\n"), "t.jsonl", Options{Key: path})
	if err != nil {
		t.Fatal(err)
	}
	diffRequests(t, got, reqsOf(5, "deep", 1))

	var p jsonScanner
	allocs := testing.AllocsPerRun(1, func() { p.setNames([3]string{"ts", path, "cost"}) })
	if allocs > 8 {
		t.Errorf("setNames of a %d-part path: %v allocations, want a few (the rests are substrings)", maxPathParts, allocs)
	}
	for l, rest := range p.rests[colKey] {
		if want := strings.Join(p.paths[colKey][l:], "."); rest != want {
			t.Fatalf("rest %d = %q, want %q", l, rest, want)
		}
	}
}
