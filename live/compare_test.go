package live

import (
	"strings"
	"testing"

	"ratebench/algorithms"
)

// A block the software set a round trip after the refusal that began it
// begins there in the model too: the request 40 ms after the block would
// have ended unmoved is refused, and a model that cannot move a block is
// refused such a replay.
func TestDecideInOrderMovesABlock(t *testing.T) {
	const ms = int64(1e6)
	r, err := algorithms.ParseRule("2/1m")
	if err != nil {
		t.Fatal(err)
	}
	tr := &Trace{T: []int64{1000 * ms, 2000 * ms, 3000 * ms, 4020 * ms, 4041 * ms}, Key: make([]int32, 5), Keys: 1}
	const spec = "rate-limiter-flexible:store=redis:blockDuration=1s"
	unmoved, _, err := DecideInOrder(spec, r, tr, nil, tr.T, nil)
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[int]int64{2: 3040 * ms} // the SET ran 40 ms after the consume that went over
	moved, _, err := DecideInOrder(spec, r, tr, nil, tr.T, blocks)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct{ unmoved, moved bool }{{true, true}, {true, true}, {false, false}, {true, false}, {true, true}} {
		if unmoved[i] != want.unmoved || moved[i] != want.moved {
			t.Errorf("request %d: admitted %v unmoved and %v moved, want %v and %v", i, unmoved[i], moved[i], want.unmoved, want.moved)
		}
	}
	if _, _, err := DecideInOrder("fixed", r, tr, nil, tr.T, blocks); err == nil || !strings.Contains(err.Error(), "cannot move a block") {
		t.Errorf("the fixed window given blocks: err = %v", err)
	}
}
