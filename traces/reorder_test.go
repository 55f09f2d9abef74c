package traces

import (
	"strings"
	"testing"
	"time"
)

// Reorder releases requests in time order (file order among equal times),
// each with its own line, and holds no more than the window needs.
func TestReorderSorts(t *testing.T) {
	in := "ts,key\n10,a\n30,b\n20,c\n20,d\n50,e\n41,f\n"
	r, err := NewCSVReader(strings.NewReader(in), "t.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	rr := Reorder(r, 15*time.Nanosecond, false)
	var got []string
	for rr.Scan() {
		q := rr.Request()
		got = append(got, string(q.Key)+":"+rr.Pos().String())
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	want := "a:t.csv:2 c:t.csv:4 d:t.csv:5 b:t.csv:3 f:t.csv:7 e:t.csv:6"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	if FormatOf(rr) != FormatCSV {
		t.Errorf("FormatOf(Reorder(csv)) = %v", FormatOf(rr))
	}
}
