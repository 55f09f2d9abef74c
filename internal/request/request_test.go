package request

import (
	"strings"
	"testing"

	"ratebench/algorithms"
)

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		t, cost int64
		want    string // "" for no error
	}{
		{0, 1, ""},
		{5, algorithms.MaxCost, ""},
		{-1, 1, "negative time -1"},
		{0, 0, "cost 0 out of range [1, 2147483647]"},
		{0, algorithms.MaxCost + 1, "cost 2147483648 out of range"},
	} {
		err := Check(c.t, c.cost)
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%d, %d) = %v, want %q", c.t, c.cost, err, c.want)
		}
	}
}

func TestCheckKeyed(t *testing.T) {
	for _, c := range []struct {
		id   int32
		seen int
		t    int64
		want string
	}{
		{0, 0, 0, ""}, // the first key
		{2, 2, 0, ""}, // the next key
		{1, 2, 0, ""}, // one seen
		{3, 2, 0, `key "k": id 3 is not in order of first appearance (2 keys seen)`},
		{-1, 2, 0, `key "k": id -1 is not in order`},
		{0, 0, -5, `key "k": negative time -5`},
	} {
		err := CheckKeyed([]byte("k"), c.id, c.seen, c.t, 1)
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckKeyed(id %d, seen %d, t %d) = %v, want %q", c.id, c.seen, c.t, err, c.want)
		}
	}
}
