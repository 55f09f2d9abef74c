package firstseen

import (
	"errors"
	"testing"
)

// TestAdd numbers keys in order of first appearance, and a key whose
// request is refused takes no number.
func TestAdd(t *testing.T) {
	ids := map[string]int32{}
	var got []int32
	feed := func(key string, refuse bool) error {
		return Add(ids, []byte(key), func(id int32) error {
			if refuse {
				return errors.New("refused")
			}
			got = append(got, id)
			return nil
		})
	}
	for _, c := range []struct {
		key    string
		refuse bool
	}{{"a", false}, {"b", false}, {"x", true}, {"a", false}, {"c", false}, {"b", false}} {
		err := feed(c.key, c.refuse)
		if (err != nil) != c.refuse {
			t.Fatalf("%q: err %v", c.key, err)
		}
	}
	want := []int32{0, 1, 0, 2, 1}
	if len(got) != len(want) {
		t.Fatalf("ids %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ids %v, want %v", got, want)
		}
	}
	if _, ok := ids["x"]; ok {
		t.Error("a refused key kept a number")
	}
}
